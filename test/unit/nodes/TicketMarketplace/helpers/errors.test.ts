/** Errors rebuilt with more description keep their kind, and anything else becomes the plainer kind. */
import { NodeApiError, NodeOperationError, type INode } from 'n8n-workflow';

import { withMoreDescription } from '../../../../../nodes/TicketMarketplace/helpers/errors';

const NODE = { name: 'Ticket Marketplace', type: 'ticketMarketplace', typeVersion: 1.1 } as INode;

describe('withMoreDescription', () => {
	it('keeps an API error an API error, with its code, answer and the lines added', () => {
		const error = new NodeApiError(
			NODE,
			{ code: 'x' },
			{
				message: 'Refused',
				description: 'The API said no.',
				httpCode: '400',
			},
		);
		const rebuilt = withMoreDescription(NODE, error, ['Created: listing 1.'], 3);
		expect(rebuilt).toBeInstanceOf(NodeApiError);
		expect(rebuilt.message).toBe('Refused');
		expect(rebuilt.description).toBe('The API said no.\nCreated: listing 1.');
		expect((rebuilt as NodeApiError).httpCode).toBe('400');
		expect(rebuilt.context.itemIndex).toBe(3);
	});

	it.each([
		['an operation error', new NodeOperationError(NODE, 'Bad row', { description: 'Fix it.' })],
		[
			'an error of another copy of n8n-workflow',
			Object.assign(new Error('Bad row'), { description: 'Fix it.' }),
		],
	])('rebuilds %s as an operation error', (_name, error) => {
		const rebuilt = withMoreDescription(NODE, error as NodeOperationError, ['Skipped: 2.'], 1);
		expect(rebuilt).toBeInstanceOf(NodeOperationError);
		expect(rebuilt.message).toBe('Bad row');
		expect(rebuilt.description).toBe('Fix it.\nSkipped: 2.');
		expect(rebuilt.context.itemIndex).toBe(1);
	});
});
