/**
 * The trigger's last-resort answer: whatever a request makes the trigger throw, the owner's log gets one line per
 * minute for it, not one per distinct message.
 */
import type { IWebhookFunctions } from 'n8n-workflow';

import { answerUnexpected } from '../../../../nodes/TicketMarketplaceTrigger/httpAnswer';

function webhookContext(workflowId: string) {
	const warn = jest.fn();
	const written: number[] = [];
	const context = {
		getNode: () => ({ name: 'Ticket Marketplace Trigger' }),
		getWorkflow: () => ({ id: workflowId }),
		getWebhookName: () => 'default',
		logger: { warn },
		getResponseObject: () => ({
			headersSent: false,
			writeHead: (status: number) => written.push(status),
			end: () => undefined,
		}),
	} as unknown as IWebhookFunctions;
	return { context, warn, written };
}

describe('answerUnexpected', () => {
	it('logs one line for many thrown messages a stranger could vary, and answers each 500', () => {
		const { context, warn, written } = webhookContext('wf-flood');
		for (let index = 0; index < 20; index++)
			answerUnexpected(
				context,
				new Error(`Unexpected token ${index} in JSON at position ${index}`),
			);
		expect(warn).toHaveBeenCalledTimes(1);
		expect(warn.mock.calls[0][0]).toContain('Unexpected token 0 in JSON');
		expect(written).toEqual(Array(20).fill(500));
	});
});
