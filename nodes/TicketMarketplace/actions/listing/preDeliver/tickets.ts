/** Pre-deliver's tickets, checked before anything is sent, and one listing's multipart upload as documented. */
import { createHash, randomBytes } from 'node:crypto';
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { asNodeError } from '../../../helpers/errors';
import { buildRequest, PARTNER_API_PATHS } from '../../../transport';
import type { ApiRequest } from '../../../transport';

/** The service documents no size limit for a PDF: this node refuses larger files rather than guess. */
export const MAX_PDF_BYTES = 10 * 1024 * 1024;
const PDF_START = Buffer.from('%PDF-');

/** An item refused before sending: n8n's error, naming the item. */
export type Refusal = ReturnType<typeof asNodeError>;

export interface Ticket {
	itemIndex: number;
	/** The marketplace's listing ID (once mapped, for a ticket named by its External Listing ID). */
	listingId: string;
	externalListingId?: number;
	row: string;
	seat: string;
	binaryPropertyName: string;
	fileName?: string;
}

/** Every item's ticket, or (with Continue On Fail) its refusal; without it the first refusal stops the run. */
export async function readTickets(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<Array<Ticket | Refusal>> {
	const seen = new Map<string, number>();
	const tickets = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const refuse = (error: unknown) => asNodeError(context.getNode(), error, itemIndex);
		const ticket = await readTicket(context, itemIndex, seen).catch(refuse);
		if (ticket instanceof Error && !context.continueOnFail()) throw ticket;
		tickets.push(ticket);
	}
	return tickets;
}

/** An item refused before anything is sent, named. */
export const refusal = (context: IExecuteFunctions, at: number, message: string, what: string) =>
	new NodeOperationError(context.getNode(), `Item ${at}: ${message}`, {
		description: `${what} Nothing was sent.`,
		itemIndex: at,
	});

const ASK_ID =
	"Map the marketplace's listing ID (the ID Create outputs), or your External Listing ID.";

async function readTicket(
	context: IExecuteFunctions,
	itemIndex: number,
	seen: Map<string, number>,
): Promise<Ticket> {
	const refuse = (message: string, what: string) => refusal(context, itemIndex, message, what);
	const text = (name: string) => String(context.getNodeParameter(name, itemIndex, '') ?? '').trim();
	const byExternalId = text('listingBy') === 'externalId';
	const listingId = text(byExternalId ? 'externalListingId' : 'listingId');
	// A dot segment would be dropped from the address, posting the files to another endpoint.
	if (['', '.', '..'].includes(listingId) || (byExternalId && !isWholeId(listingId)))
		throw refuse(listingId ? `"${listingId}" is not a Listing ID` : 'no Listing ID', ASK_ID);
	const ga = context.getNodeParameter('generalAdmission', itemIndex, false) === true;
	const [row, seat] = ga ? ['GA', 'GA'] : [text('row'), text('seat')];
	if (row === '' || seat === '')
		throw refuse('no row or seat', 'Map the row and seat, or turn on General Admission.');
	const binaryPropertyName = text('binaryPropertyName');
	const binary = context.helpers.assertBinaryData(itemIndex, binaryPropertyName);
	const bytes = await context.helpers.getBinaryDataBuffer(itemIndex, binaryPropertyName);
	const file = `The file${binary.fileName ? ` "${binary.fileName}"` : ''}`;
	if (bytes.length === 0) throw refuse(`${file} is empty`, 'Give each ticket its PDF.');
	if (bytes.length > MAX_PDF_BYTES)
		throw refuse(`${file} is larger than 10 MB`, 'Send a smaller PDF of the ticket.');
	if (!bytes.subarray(0, PDF_START.length).equals(PDF_START))
		throw refuse(`${file} is not a PDF`, 'A ticket PDF opens with "%PDF-".');
	const seatKey = JSON.stringify([byExternalId, listingId, row.toLowerCase(), seat.toLowerCase()]);
	const before = seen.get(seatKey);
	// Row and seat GA is how the service names a general admission ticket, switch or not: it repeats.
	if (!isGa({ row, seat }) && before !== undefined)
		throw refuse(
			`row ${row}, seat ${seat} of listing ${listingId} is given twice`,
			`Item ${before} has the same seat: give each seat one PDF.`,
		);
	seen.set(seatKey, itemIndex);
	const externalListingId = byExternalId ? Number(listingId) : undefined;
	const { fileName } = binary;
	return { itemIndex, listingId, externalListingId, row, seat, binaryPropertyName, fileName };
}

/** External Listing IDs are whole numbers, as Create takes them. */
const isWholeId = (text: string) => /^\d+$/.test(text) && Number.isSafeInteger(Number(text));

export const isGa = ({ row, seat }: { row: string; seat: string }) =>
	`${row} ${seat}`.toUpperCase() === 'GA GA';

/** A listing's tickets as its memory names them: the same seats, in any order or case, give the same tag. */
export function ticketsTag(tickets: Ticket[]): string {
	const seats = tickets.map(({ row, seat }) => JSON.stringify([row, seat]).toLowerCase()).sort();
	return createHash('sha256').update(seats.join('\n')).digest('hex').slice(0, 16);
}

/** The part holding a ticket's PDF: named by position, so that no file name needs quoting. */
export const partName = (position: number) => `file${position + 1}.pdf`;

/** One listing's upload; its files are read only when it is sent (and again if it is sent again). */
export function uploadRequest(context: IExecuteFunctions, tickets: Ticket[]): ApiRequest {
	const boundary = `----n8nTicketMarketplace${randomBytes(12).toString('hex')}`;
	const path = `${PARTNER_API_PATHS.preDeliver}/${encodeURIComponent(tickets[0].listingId)}`;
	const request = buildRequest('POST', path, undefined, {
		'Content-Type': `multipart/form-data; boundary=${boundary}`,
	});
	const head = (name: string, type: string, file = false) =>
		Buffer.from(
			`--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file ? `; filename="${name}"` : ''}\r\nContent-Type: ${type}\r\n\r\n`,
		);
	const products = tickets.map(({ row, seat }, i) => ({ row, seat, name: partName(i) }));
	request.upload = async () => {
		const parts: Buffer[] = [
			head('listing', 'application/json'),
			Buffer.from(JSON.stringify({ products })),
		];
		for (const [i, { itemIndex, binaryPropertyName }] of tickets.entries()) {
			const pdf = await context.helpers.getBinaryDataBuffer(itemIndex, binaryPropertyName);
			parts.push(Buffer.from('\r\n'), head(partName(i), 'application/pdf', true), pdf);
		}
		return Buffer.concat([...parts, Buffer.from(`\r\n--${boundary}--\r\n`)]);
	};
	return request;
}
