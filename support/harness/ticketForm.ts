/**
 * Filling in an n8n form as its page does (n8n 2.x Form Trigger, measured on 2.8.4): a multipart/form-data POST to
 * the production URL `/form/<path>`, one part per form field named `field-0`, `field-1`, … in the fields' order
 * (a checkbox field sends the ticked labels as a JSON array, a file field the file). When a Form node ends the
 * workflow, n8n answers `{ formWaitingUrl }` at once; the page then asks `<formWaitingUrl>/n8n-execution-status`
 * until the run waits on its Form Ending, and opens that page: what the person who submitted sees.
 */
import { pollUntil } from './n8n';
import type { WorkflowJson } from './workflows';
import { nodeByType } from './workflows';

export interface FormFile {
	fileName: string;
	mimeType: string;
	bytes: Buffer;
}

export type FormValue = string | string[] | FormFile | null;

/** The production path of the workflow's n8n Form Trigger (GET and POST /form/<path>). */
export function formPath(workflow: WorkflowJson): string {
	const trigger = nodeByType(workflow, 'n8n-nodes-base.formTrigger');
	const options = trigger.parameters.options as { path?: unknown } | undefined;
	const path = options?.path ?? trigger.parameters.path ?? trigger.webhookId;
	if (typeof path !== 'string' || path === '')
		throw new Error(`workflow "${workflow.name}" has a Form Trigger without a path`);
	return path;
}

/** A small valid PDF (header, one page showing `text`, cross-reference table, trailer) made in memory. */
export function smallPdf(text: string): Buffer {
	const safe = text.replace(/[()\\]/g, '');
	const stream = `BT /F1 18 Tf 40 100 Td (${safe}) Tj ET`;
	const objects = [
		'<< /Type /Catalog /Pages 2 0 R >>',
		'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
		'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
		`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
		'<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
	];
	let body = '%PDF-1.4\n';
	const offsets: number[] = [];
	for (const [index, object] of objects.entries()) {
		offsets.push(body.length);
		body += `${index + 1} 0 obj\n${object}\nendobj\n`;
	}
	const xref = body.length;
	body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
	for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
	body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
	return Buffer.from(body, 'latin1');
}

/** What the person who submitted the form sees at the end: the Form Ending's title and message. */
export interface FormEnding {
	title: string;
	message: string;
}

/** Submits the form with a Basic Auth login; the values in the form's field order. */
export async function submitForm(
	formUrl: string,
	login: { user: string; password: string },
	values: FormValue[],
): Promise<{ status: number; body: unknown }> {
	const form = new FormData();
	for (const [index, value] of values.entries()) {
		const name = `field-${index}`;
		if (value === null) continue;
		if (typeof value === 'string') form.append(name, value);
		else if (Array.isArray(value)) form.append(name, JSON.stringify(value));
		else form.append(name, new Blob([value.bytes], { type: value.mimeType }), value.fileName);
	}
	const authorization = `Basic ${Buffer.from(`${login.user}:${login.password}`).toString('base64')}`;
	const response = await fetch(formUrl, {
		method: 'POST',
		headers: { authorization },
		body: form,
		signal: AbortSignal.timeout(120_000),
	});
	const text = await response.text();
	let body: unknown = text;
	try {
		body = JSON.parse(text);
	} catch {
		// Not JSON: keep the text.
	}
	return { status: response.status, body };
}

const ENTITIES: Record<string, string> = {
	'&amp;': '&',
	'&lt;': '<',
	'&gt;': '>',
	'&quot;': '"',
	'&#39;': "'",
	'&#x27;': "'",
	'&#x3D;': '=',
	'&#x60;': '`',
};

function textOf(html: string): string {
	return html
		.replace(/<[^>]*>/g, '')
		.replace(/&[#\w]+;/g, (entity) => ENTITIES[entity] ?? entity)
		.trim();
}

/**
 * Follows a submission to its Form Ending page as the form's page does: waits (bounded) until the run waits on it,
 * then reads the page's title and message. `n8nUrl` replaces the address n8n put in formWaitingUrl (its own
 * idea of its public address), keeping the path and the query.
 */
export async function formEnding(n8nUrl: string, formWaitingUrl: string): Promise<FormEnding> {
	// n8n 2.41 signs the waiting page with a token in the query (`?signature=…`), which both requests carry.
	const waiting = new URL(formWaitingUrl);
	const at = (suffix: string) =>
		new URL(`${waiting.pathname}${suffix}${waiting.search}`, n8nUrl).toString();
	const page = at('');
	let status = '';
	await pollUntil(
		'the form run to reach its ending page',
		async () => {
			status = (await (await fetch(at('/n8n-execution-status'))).text()).trim();
			return !['new', 'running', 'waiting', 'null', ''].includes(status);
		},
		60_000,
	);
	if (status !== 'form-waiting' && status !== 'success')
		throw new Error(`the form's run ended "${status}", not on its ending page`);
	const html = await (await fetch(page, { signal: AbortSignal.timeout(30_000) })).text();
	const title = /<h1>([\s\S]*?)<\/h1>/.exec(html)?.[1];
	const message = /<p style="white-space: pre-line;">([\s\S]*?)<\/p>/.exec(html)?.[1];
	if (title === undefined || message === undefined)
		throw new Error(`the form's ending page has no title and message: ${html.slice(0, 300)}`);
	return { title: textOf(title), message: textOf(message) };
}
