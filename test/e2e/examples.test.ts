/**
 * Every example workflow, including those that cannot run here (Slack, Google Sheets), against the node and
 * credential types of the running n8n (as its editor loads them): each node's type and version exists, every
 * parameter in the file is one that n8n shows for that node (a misspelt or misplaced parameter would be dropped
 * silently on import), required parameters are set, and each credential is one the node accepts.
 */
import { join } from 'node:path';

import type { INode, INodeTypeDescription } from 'n8n-workflow';

import { n8nInstallDir, n8nVersion } from '../../support/harness/n8nInstall';

import { ownerSessionCookie, OWNER_BROWSER_ID } from '../../support/harness/n8n';
import { EXAMPLE_FILES, loadExample, type WorkflowJson } from '../../support/harness/workflows';
import { describeOnN8n2, useE2e } from '../../support/e2e/helpers';

const e2e = useE2e();

/**
 * The parameter logic of the n8n under test (its own n8n-workflow), not the project's: newer n8n describes its nodes
 * with display rules that an older n8n-workflow cannot resolve (Read/Write Files 1.1 of n8n 2.41 makes n8n-workflow
 * 2.8's getNodeParameters give up with "Max iterations reached").
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { NodeHelpers } = require(
	join(n8nInstallDir(n8nVersion()), 'node_modules', 'n8n-workflow'),
) as typeof import('n8n-workflow');

async function editorTypes(): Promise<{
	nodes: INodeTypeDescription[];
	credentials: Array<{ name: string }>;
}> {
	const { n8nUrl } = e2e().context;
	const headers = { cookie: await ownerSessionCookie(n8nUrl), 'browser-id': OWNER_BROWSER_ID };
	const load = async <T>(path: string) => {
		const response = await fetch(`${n8nUrl}${path}`, { headers });
		expect({ path, status: response.status }).toEqual({ path, status: 200 });
		return (await response.json()) as T;
	};
	return {
		nodes: await load('/types/nodes.json'),
		credentials: await load('/types/credentials.json'),
	};
}

function describeOf(
	types: INodeTypeDescription[],
	node: WorkflowJson['nodes'][number],
): INodeTypeDescription | undefined {
	return types.find(
		(type) =>
			type.name === node.type &&
			(Array.isArray(type.version)
				? type.version.includes(node.typeVersion)
				: type.version === node.typeVersion),
	);
}

/** What is wrong with one node of a workflow file, in words (empty when nothing is). */
function nodeProblems(
	description: INodeTypeDescription | undefined,
	node: WorkflowJson['nodes'][number],
	credentialTypes: string[],
): string[] {
	if (!description)
		return [`${node.type} version ${node.typeVersion} is not a node type of this n8n`];
	const problems: string[] = [];
	const shown =
		NodeHelpers.getNodeParameters(
			description.properties,
			node.parameters as never,
			true,
			false,
			node as unknown as INode,
			description,
		) ?? {};
	for (const name of Object.keys(node.parameters)) {
		if (!(name in shown))
			problems.push(
				`parameter "${name}" is not shown for these settings (unknown, misspelt or hidden)`,
			);
	}
	const issues = NodeHelpers.getNodeParametersIssues(
		description.properties,
		{ ...(node as unknown as INode), parameters: shown },
		description,
	);
	for (const [name, messages] of Object.entries(issues?.parameters ?? {}))
		problems.push(`parameter "${name}": ${messages.join('; ')}`);
	for (const credentialType of Object.keys(node.credentials ?? {})) {
		const accepted = (description.credentials ?? []).map((credential) => credential.name);
		const viaHttpRequest =
			node.type === 'n8n-nodes-base.httpRequest' &&
			node.parameters.nodeCredentialType === credentialType;
		if (!accepted.includes(credentialType) && !viaHttpRequest)
			problems.push(`credential type ${credentialType} is not one this node accepts`);
		if (!credentialTypes.includes(credentialType))
			problems.push(`credential type ${credentialType} does not exist in this n8n`);
	}
	return problems;
}

describeOnN8n2(
	'the example workflows in the real n8n',
	'the examples use n8n 2.x node versions (Data Table 1.1, Read/Write Files 1.1)',
	() => {
		let types: Awaited<ReturnType<typeof editorTypes>>;

		beforeAll(async () => {
			types = await editorTypes();
		});

		it.each(Object.values(EXAMPLE_FILES))(
			'%s: every node type, parameter and credential resolves',
			(file) => {
				const workflow = loadExample(file);
				const credentialTypes = types.credentials.map((credential) => credential.name);
				const problems = workflow.nodes.flatMap((node) =>
					nodeProblems(describeOf(types.nodes, node), node, credentialTypes).map(
						(problem) => `${node.name}: ${problem}`,
					),
				);
				expect(problems).toEqual([]);
			},
		);

		it('the check itself catches a misspelt parameter, a hidden one and a missing required one', () => {
			const credentialTypes = types.credentials.map((credential) => credential.name);
			const mattermost = loadExample(EXAMPLE_FILES.saleAlert).nodes.find(
				(node) => node.type === 'n8n-nodes-base.mattermost',
			);
			if (!mattermost) throw new Error('the sale alert example has no Mattermost node');
			const parameters = Object.fromEntries(
				Object.entries(mattermost.parameters).filter(([name]) => name !== 'channelId'),
			);
			const broken = {
				...mattermost,
				parameters: { ...parameters, mesage: 'typo', userId: 'hidden-for-post' },
			};
			const problems = nodeProblems(describeOf(types.nodes, broken), broken, credentialTypes).join(
				'\n',
			);
			expect(problems).toContain('"mesage"');
			expect(problems).toContain('"userId"');
			expect(problems).toContain('"channelId"');
		});

		it("n8n's HTTP Request node accepts the Ticket Marketplace API credential as a predefined credential type", () => {
			// The editor offers a credential type there when it has an authenticate (our function arrives as {}).
			const credential = types.credentials.find(
				(candidate) => candidate.name === 'ticketMarketplaceApi',
			) as { authenticate?: unknown } | undefined;
			expect(credential?.authenticate).toBeDefined();
		});
	},
);
