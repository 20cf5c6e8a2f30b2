/** Pre-deliver's tickets, checked (and mapped by Create's record) before anything is sent; one listing's upload. */
import { createHash, randomBytes } from 'node:crypto';
import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';

import { asNodeError, errorText } from '../../../helpers/errors';
import { buildRequest, type ApiRequest, type UploadBody } from '../../../transport';
import { PARTNER_API_PATHS } from '../../../../shared/partnerApi/paths';
import { findCreated, seatName, type CreatedListing } from '../memory/createdListings';
import { failureOf } from '../memory/memoryFailure';
import type { MemoryAccount } from '../memory/sentListings';

/** The service documents no size limit for a PDF: this node refuses larger files rather than guess. */
export const MAX_PDF_BYTES = 10 * 1024 * 1024;
const MAX_PDF_WORDS = '10 MiB (10,485,760 bytes)';

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
	/** The file's length when checked: its upload declares it, and fails if the file then reads otherwise. */
	size: number;
	/** A General Admission ticket's PDF, hashed: what tells it apart from the listing's other GA tickets. */
	gaFile?: string;
}

/** Each item read before any is sent, or its refusal: without Continue On Fail, the first refusal stops the run. */
export async function readEach<T>(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	read: (itemIndex: number) => Promise<T>,
): Promise<Array<T | Refusal>> {
	const all = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const refuse = (error: unknown) => asNodeError(context.getNode(), error, itemIndex);
		const one = await read(itemIndex).catch(refuse);
		if (one instanceof Error && !context.continueOnFail()) throw one;
		all.push(one);
	}
	return all;
}

const refusal = (context: IExecuteFunctions, at: number, message: string, what: string) =>
	new NodeOperationError(context.getNode(), `Item ${at + 1}: ${message}`, {
		description: `${what} Nothing was sent.`,
		itemIndex: at,
	});

const ASK_ID =
	"Map the marketplace's listing ID (the ID Create outputs), or your External Listing ID.";

export async function ticketAt(context: IExecuteFunctions, itemIndex: number): Promise<Ticket> {
	const refuse = (message: string, what: string) => refusal(context, itemIndex, message, what);
	const value = (name: string) => context.getNodeParameter(name, itemIndex, '');
	const text = (name: string) => String(value(name) ?? '').trim();
	const byExternalId = text('listingBy') === 'externalId';
	const idField = byExternalId ? 'externalListingId' : 'listingId';
	// An object would be sent as "[object Object]".
	if (typeof value(idField) === 'object' && value(idField) !== null)
		throw refuse('the Listing ID is a list or an object, not a Listing ID', ASK_ID);
	const listingId = text(idField);
	// External Listing IDs are whole numbers, as Create takes them.
	const whole = /^\d+$/.test(listingId) && Number.isSafeInteger(Number(listingId));
	const notWhole = byExternalId && !whole && `"${listingId}" is not a Listing ID`;
	const wrongId = notAListingId(listingId) ?? (notWhole || undefined);
	if (wrongId !== undefined) throw refuse(wrongId, ASK_ID);
	const ga = context.getNodeParameter('generalAdmission', itemIndex, false) === true;
	const [row, seat] = ga ? ['GA', 'GA'] : [text('row'), text('seat')];
	if (row === '' || seat === '')
		throw refuse('no row or seat', 'Map the row and seat, or turn on General Admission.');
	const binaryPropertyName = text('binaryPropertyName');
	const binary = context.getInputData()[itemIndex]?.binary?.[binaryPropertyName];
	if (!binary)
		throw refuse(
			`The item has no binary field '${binaryPropertyName}'`,
			'Set Input Binary Field to the name of the binary field the previous node outputs the PDF in.',
		);
	const file = `The file${binary.fileName ? ` "${binary.fileName}"` : ''}`;
	const bytes = await context.helpers
		.getBinaryDataBuffer(itemIndex, binaryPropertyName)
		.catch((error: unknown) => {
			// Its cause goes in the description: n8n rewrites a message that holds a code such as ENOENT.
			throw refuse(
				`${file} (binary field '${binaryPropertyName}') could not be read`,
				`n8n's binary data store could not give it (${errorText(error)}): run the node that gives the file again.`,
			);
		});
	if (bytes.length === 0) throw refuse(`${file} is empty`, 'Give each ticket its PDF.');
	if (bytes.length > MAX_PDF_BYTES)
		throw refuse(`${file} is larger than ${MAX_PDF_WORDS}`, 'Send a smaller PDF of the ticket.');
	if (bytes.subarray(0, 5).toString('latin1') !== '%PDF-')
		throw refuse(`${file} is not a PDF`, 'A ticket PDF opens with "%PDF-".');
	return {
		itemIndex,
		listingId,
		externalListingId: byExternalId ? Number(listingId) : undefined,
		row,
		seat,
		binaryPropertyName,
		fileName: binary.fileName,
		size: bytes.length,
		gaFile: seatName({ row, seat }) === 'GA' ? sha256(bytes) : undefined,
	};
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why a marketplace listing ID (typed, or learnt from Create) cannot name the upload's address; undefined if it can. */
function notAListingId(id: string): string | undefined {
	if (id === '') return 'no Listing ID';
	// No address can hold it (encoding it throws).
	if (LONE_SURROGATE.test(id))
		return `the Listing ID ${JSON.stringify(id)} is not well-formed text`;
	// A dot segment would be dropped from the address, posting the files to another endpoint.
	return ['.', '..'].includes(id) ? `"${id}" is not a Listing ID` : undefined;
}

const seatOf = (ticket: Ticket) => seatName(ticket)!;

/** A seat given twice for one marketplace ID (two External Listing IDs may name one listing) is refused; GA repeats. */
function refuseRepeatedSeats(
	context: IExecuteFunctions,
	tickets: Array<Ticket | Refusal>,
): Array<Ticket | Refusal> {
	const seen = new Map<string, number>();
	return tickets.map((ticket) => {
		// Row and seat GA is how the service names a general admission ticket, switch or not.
		if (ticket instanceof Error || seatOf(ticket) === 'GA') return ticket;
		const { itemIndex, listingId, externalListingId, row, seat } = ticket;
		const key = JSON.stringify([listingId, seatOf(ticket)]);
		const before = seen.get(key);
		if (before === undefined) {
			seen.set(key, itemIndex);
			return ticket;
		}
		const twice = `row ${row}, seat ${seat} of listing ${externalListingId ?? listingId} is given twice`;
		const what = `Item ${before + 1} has the same seat: give each seat one PDF.`;
		const refused = refusal(context, itemIndex, twice, what);
		if (!context.continueOnFail()) throw refused;
		return refused;
	});
}

const sha256 = (data: string | Buffer) =>
	createHash('sha256').update(data).digest('hex').slice(0, 16);

/** Each ticket as the memory names it (its seat as Create compares it; a GA ticket by its PDF), then the listing: an
 * upload of unknown outcome holds it whatever tickets a later run brings. Text, kept as Create's numeric IDs are. */
export const ticketKeys = (listingId: string, tickets: Ticket[]) =>
	[
		...tickets.map(({ gaFile, ...ticket }) => {
			const seat = gaFile === undefined ? JSON.stringify(seatOf(ticket)) : `GA ${gaFile}`;
			return `${listingId} ticket ${sha256(seat)}`;
		}),
		`${listingId} listing`,
	] as unknown as number[];

/** The part holding a ticket's PDF: named by position, so that no file name needs quoting. */
export const partName = (position: number) => `file${position + 1}.pdf`;

type File = Buffer | Awaited<ReturnType<IExecuteFunctions['helpers']['getBinaryStream']>>;

/** One listing's upload; each send streams its files from n8n's binary data, one file open at a time. */
export function uploadRequest(context: IExecuteFunctions, tickets: Ticket[]): ApiRequest {
	const boundary = `----n8nTicketMarketplace${randomBytes(12).toString('hex')}`;
	const path = `${PARTNER_API_PATHS.preDeliver}/${encodeURIComponent(tickets[0].listingId)}`;
	const head = (name: string, type: string, file = false) =>
		`${file ? '\r\n' : ''}--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file ? `; filename="${name}"` : ''}\r\nContent-Type: ${type}\r\n\r\n`;
	const products = tickets.map(({ row, seat }, i) => ({ row, seat, name: partName(i) }));
	const listing = Buffer.from(head('listing', 'application/json') + JSON.stringify({ products }));
	const heads = tickets.map((_, i) => Buffer.from(head(partName(i), 'application/pdf', true)));
	const end = Buffer.from(`\r\n--${boundary}--\r\n`);
	const type = `multipart/form-data; boundary=${boundary}`;
	const parts = [listing, ...heads, end, ...tickets.map((ticket) => ({ length: ticket.size }))];
	const size = parts.reduce((sum, part) => sum + part.length, 0);
	const request = buildRequest('POST', path, undefined, {
		'Content-Type': type,
		'Content-Length': String(size),
	});
	// Filesystem, S3 and database modes stream the file from the store; in memory mode it is in memory already.
	const open = async ({ itemIndex, binaryPropertyName: name }: Ticket): Promise<File> => {
		const id = context.getInputData()[itemIndex].binary?.[name]?.id;
		return id
			? await context.helpers.getBinaryStream(id)
			: await context.helpers.getBinaryDataBuffer(itemIndex, name);
	};
	const layout = { listing, heads, end, type, size };
	request.upload = async () => await uploadBody(tickets, open, layout);
	return request;
}

type Layout = { listing: Buffer; heads: Buffer[]; end: Buffer; type: string; size: number };

/** One send's body: its first file opened first (one n8n cannot give sends nothing), each later one when reached. */
async function uploadBody(
	tickets: Ticket[],
	open: (ticket: Ticket) => Promise<File>,
	{ listing, heads, end, type, size }: Layout,
): Promise<UploadBody> {
	let file = await open(tickets[0]);
	let closed = false;
	const release = () => void (Buffer.isBuffer(file) || file.destroy());
	async function* body() {
		try {
			yield listing;
			for (const [i, ticket] of tickets.entries()) {
				yield heads[i];
				if (i > 0) file = await open(ticket);
				// The send ended while this file opened: nothing will read it.
				if (closed) {
					release();
					return;
				}
				let read = 0;
				for await (const chunk of Buffer.isBuffer(file) ? [file] : file) {
					if ((read += (chunk as Buffer).length) > ticket.size) break;
					yield chunk as Buffer;
				}
				if (read !== ticket.size)
					throw new Error(`item ${ticket.itemIndex}'s file changed since it was checked`);
			}
			yield end;
		} catch (error) {
			// Part of the body has left: a code makes it a connection lost, of unknown outcome.
			const message = `A ticket file failed while its upload was sent: ${errorText(error)}`;
			throw Object.assign(new Error(message), { code: 'ERR_TICKET_FILE_FAILED' });
		}
	}
	const close = () => {
		closed = true;
		release();
	};
	return { [Symbol.toStringTag]: 'Blob', type, size, stream: body, close };
}

const BY_ID = 'choose Listing → By Marketplace Listing ID and map the id Create output';
const NO_RECORD = `Create remembers a listing for Pre-Deliver only in this workflow, with its Options → Remember Listings for Pre-Deliver and Skip Listings Already Sent on: check the ID, turn that option on in Create for the listings it creates from now on, or ${BY_ID}.`;
const FULL = `Looking a listing up writes to the memory for a moment, and it has no room left: forget listings you no longer list with Listing → Clear Sent Listings History, or ${BY_ID}.`;
const BAD_RECORD =
	"The marketplace answered Create with an ID no upload address can hold: choose Listing → By Marketplace Listing ID and map the listing's ID as the marketplace shows it.";
const UNREADABLE = `Create's record of it is in the memory, but it read differently at each look (another run looking at the same moment, or n8n's database failing to take out what a look wrote): run the workflow again, or ${BY_ID}.`;
const NOT_A_SEAT =
	'Create recorded the seats of this listing and this is not one of them: check the row and seat.';

/** One named by External Listing ID gets the marketplace ID Create recorded, or is refused, as is a seat twice. */
export async function checkedTickets(
	context: IExecuteFunctions,
	tickets: Array<Ticket | Refusal>,
	account: MemoryAccount | undefined,
): Promise<Array<Ticket | Refusal>> {
	const asked = new Map<number, string[]>();
	for (const ticket of tickets) {
		const id = ticket instanceof Error ? undefined : ticket.externalListingId;
		if (id !== undefined) asked.set(id, [...(asked.get(id) ?? []), seatOf(ticket as Ticket)]);
	}
	if (!account || asked.size === 0) return refuseRepeatedSeats(context, tickets);
	const { found, unreadable } = await findCreated(context, account, asked).catch((error) => {
		// Running again does not make room: only forgetting does, or not looking.
		const full = failureOf(error).kind === 'full';
		const message = `Could not read which listings Create created: ${full ? "n8n's memory of this workflow is full" : errorText(error)}`;
		const description = `Nothing was sent. ${full ? FULL : `Run the workflow again, or ${BY_ID}.`}`;
		throw new NodeOperationError(context.getNode(), message, { description });
	});
	const mapped = tickets.map((ticket) => {
		if (ticket instanceof Error || ticket.externalListingId === undefined) return ticket;
		const listing = found.get(ticket.externalListingId);
		const why = whyNotMapped(ticket, listing, unreadable.has(ticket.externalListingId));
		const refused = why && refusal(context, ticket.itemIndex, ...why);
		if (refused && !context.continueOnFail()) throw refused;
		return refused || { ...ticket, listingId: listing!.marketplaceId };
	});
	return refuseRepeatedSeats(context, mapped);
}

/** Why a ticket named by External Listing ID is refused, and what to do; undefined when its listing is found. */
function whyNotMapped(
	ticket: Ticket,
	listing: CreatedListing | undefined,
	unreadable: boolean,
): [message: string, what: string] | undefined {
	const { externalListingId: id, row, seat } = ticket;
	const named = `External Listing ID ${id}`;
	if (unreadable) return [`Create's record of ${named} could not be read`, UNREADABLE];
	if (!listing) return [`this workflow's Listing → Create has no record of ${named}`, NO_RECORD];
	const wrongId = notAListingId(listing.marketplaceId);
	if (wrongId !== undefined) return [`listing ${id} was created as ${wrongId}`, BAD_RECORD];
	if (!listing.seats.includes(seatOf(ticket)))
		return [`listing ${id} holds no ticket at row ${row}, seat ${seat}`, NOT_A_SEAT];
	return undefined;
}
