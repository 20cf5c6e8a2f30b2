/**
 * Partner API resource: Pre-deliver Pdf, `POST /sellers/listings/pdf/v3/{listingId}`, multipart/form-data. A part
 * named `listing` holds `{"products": [{"row", "seat", "name"}]}`; each product's PDF is the part its `name` names.
 * Each product must be a seat of the listing (GA for a general admission ticket); once every ticket of the listing
 * has its PDF, the listing is pre-delivered. What each ticket received (part, size, SHA-256) shows in its state.
 */
import { createHash } from 'node:crypto';
import type http from 'node:http';

import { PARTNER_API_PATHS } from '../../nodes/shared/partnerApi/paths';
import { sendInventoryError } from '../answers';
import { isPlainObject, sendJson } from '../http';
import type { SandboxStore } from '../store';
import { requireBearer } from './tokens';

export const PDF_PATH_PREFIX = `${PARTNER_API_PATHS.preDeliver}/`;
/** Several PDFs of up to 10 MB each go in one request: the sandbox's usual body limit would refuse them. */
export const PDF_MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface FormPart {
	name: string;
	filename?: string;
	contentType?: string;
	data: Buffer;
}

/** The parts of a multipart/form-data body (RFC 7578), or a sentence saying why it is not one. */
export function parseMultipart(body: Buffer, contentType: string | undefined): FormPart[] | string {
	const boundary = /;\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(contentType ?? '');
	if (!/^multipart\/form-data\s*;/i.test(contentType ?? '') || !boundary)
		return 'Content-Type must be multipart/form-data with a boundary';
	const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
	const parts: FormPart[] = [];
	let at = body.indexOf(delimiter);
	if (at !== 0) return 'The body does not open with the boundary';
	for (;;) {
		at += delimiter.length;
		if (body.subarray(at, at + 2).toString() === '--') return parts;
		const headEnd = body.indexOf('\r\n\r\n', at);
		const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headEnd);
		if (body.subarray(at, at + 2).toString() !== '\r\n' || headEnd < 0 || next < 0)
			return 'A part is cut short or the closing boundary is missing';
		const head = body.subarray(at + 2, headEnd).toString('utf8');
		const disposition = /^content-disposition:\s*form-data(.*)$/im.exec(head)?.[1] ?? '';
		const name = /;\s*name="([^"]*)"/i.exec(disposition)?.[1];
		if (name === undefined) return 'A part has no Content-Disposition name';
		const filename = /;\s*filename="([^"]*)"/i.exec(disposition)?.[1];
		const type = /^content-type:\s*(.+)$/im.exec(head)?.[1]?.trim();
		parts.push({ name, filename, contentType: type, data: body.subarray(headEnd + 4, next) });
		at = next + 2;
	}
}

interface Product {
	row: string;
	seat: string;
	name: string;
}

function productsOf(part: FormPart | undefined): Product[] | string {
	if (!part) return 'The part "listing" is missing';
	let value: unknown;
	try {
		value = JSON.parse(part.data.toString('utf8'));
	} catch {
		return 'The part "listing" is not JSON';
	}
	const products = isPlainObject(value) ? value.products : undefined;
	const valid = (p: unknown): p is Product =>
		isPlainObject(p) && ['row', 'seat', 'name'].every((key) => typeof p[key] === 'string');
	if (!Array.isArray(products) || products.length === 0 || !products.every(valid))
		return 'The part "listing" must hold {"products": [{"row", "seat", "name"}, ...]}';
	return products;
}

const same = (a: unknown, b: string) =>
	String(a ?? '')
		.trim()
		.toLowerCase() === b.trim().toLowerCase();

export function handlePdfUpload(
	store: SandboxStore,
	req: http.IncomingMessage,
	res: http.ServerResponse,
	pathname: string,
	buffer: Buffer,
): void {
	const token = requireBearer(store, req, res, 'pdfs');
	if (!token) return;
	const listingId = decodeURIComponent(pathname.slice(PDF_PATH_PREFIX.length));
	const listing = store.listings.get(listingId);
	if (!listing || listing.consumerKey !== token.consumerKey) {
		sendInventoryError(res, 404, 'listingNotFound', `Listing ${listingId} not found`);
		return;
	}
	const refuse = (description: string) => sendInventoryError(res, 400, 'invalidPdf', description);
	const parts = parseMultipart(buffer, req.headers['content-type']);
	if (typeof parts === 'string') return refuse(parts);
	const products = productsOf(parts.find((part) => part.name === 'listing'));
	if (typeof products === 'string') return refuse(products);
	const files = parts.filter((part) => part.name !== 'listing');
	const matched: Array<[number, FormPart]> = [];
	for (const product of products) {
		const file = files.find((part) => part.name === product.name);
		if (!file) return refuse(`No part named "${product.name}"`);
		if (
			file.contentType?.toLowerCase() !== 'application/pdf' ||
			!file.data.subarray(0, 5).equals(Buffer.from('%PDF-'))
		)
			return refuse(`The part "${product.name}" is not an application/pdf PDF`);
		const ga = same(product.row, 'GA') && same(product.seat, 'GA');
		const seat = listing.products.findIndex(
			(p, i) =>
				!matched.some(([taken]) => taken === i) &&
				(ga
					? p.ga === true
					: p.ga !== true && same(p.row, product.row) && same(p.seat, product.seat)),
		);
		if (seat < 0)
			return refuse(
				`The listing holds no ticket at row ${product.row}, seat ${product.seat} left to deliver`,
			);
		matched.push([seat, file]);
	}
	if (files.length !== products.length) return refuse('Each PDF part must be named by one product');
	for (const [seat, file] of matched) {
		const sha256 = createHash('sha256').update(file.data).digest('hex');
		listing.products[seat].pdf = { part: file.name, bytes: file.data.length, sha256 };
	}
	listing.preDelivered = listing.products.every((product) => product.pdf !== undefined);
	sendJson(res, 200, {
		listingId,
		ticketsDelivered: matched.length,
		preDelivered: listing.preDelivered,
	});
}
