/** Partner API resource: listings (spec 2.4, headers of 4.3). Creating one, once per externalListingId and app. */
import type http from 'node:http';

import {
	ERROR_CODE,
	ID_PREFIX,
	LISTING_STATUS_ON_CREATE,
	REQUIRE_UNIQUE_PRODUCT_EXTERNAL_IDS,
	SUCCESS_STATUS,
	listingResponse,
} from '../choices';
import {
	duplicateExternalListingIdText,
	INVENTORY_ERROR,
	invalidListingCodeName,
	inventoryNameOf,
	sendInventoryError,
	SERVICE_LISTING_STATUS,
} from '../answers';
import { mediaType, parseJson, sendError, sendJson } from '../http';
import { newId } from '../records';
import type { ListingRecord } from '../records';
import type { SandboxStore } from '../store';
import { validateListing } from '../validation';
import type { Problem } from '../validation';
import { requireBearer } from './tokens';

/** True when Accept names application/json with a non-zero quality (the spec asks for exactly that header, 4.3). */
function acceptsJson(header: string | undefined): boolean {
	if (!header) return false;
	return header.split(',').some((range) => {
		const [type, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
		if (type !== 'application/json') return false;
		const q = params.find((param) => param.startsWith('q='));
		return q === undefined || Number(q.slice(2)) > 0;
	});
}

const LANGUAGE_TAG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/;

/**
 * Accept-Language: one tag (e.g. en-US) or a list of tags with optional q values, each well formed, naming at least
 * one real language. A lone `*` (what Node's fetch sends by default) is not the language tag 4.3 asks for.
 */
function wellFormedAcceptLanguage(header: string | undefined): boolean {
	if (!header || !header.trim()) return false;
	const tags = header.split(',').map((entry) => {
		const [tag, ...params] = entry.split(';').map((part) => part.trim());
		const qualityOk = params.every((param) => /^q=(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(param));
		return { tag, ok: qualityOk && (tag === '*' || LANGUAGE_TAG.test(tag)) };
	});
	return tags.every((t) => t.ok) && tags.some((t) => t.tag !== '*');
}

/** A listing refusal: the sandbox's own shape (spec) or the listing service's `{code, description}` (service). */
function refuse(
	store: SandboxStore,
	res: http.ServerResponse,
	status: number,
	specCode: string,
	message: string,
	options: { details?: Problem[]; serviceName?: string; serviceStatus?: number } = {},
): void {
	if (store.serviceShapes)
		sendInventoryError(
			res,
			options.serviceStatus ?? status,
			options.serviceName ?? inventoryNameOf(specCode),
			message,
		);
	else sendError(res, status, specCode, message, options.details);
}

/** The seat of a seated product as the service compares it: row and seat, with a section when one is given. */
function seatKey(eventId: unknown, product: Record<string, unknown>): string | undefined {
	if (product.ga === true || typeof product.row !== 'string' || typeof product.seat !== 'string')
		return undefined;
	const section = typeof product.section === 'string' ? product.section.trim().toLowerCase() : '';
	return JSON.stringify([
		eventId,
		section,
		product.row.trim().toLowerCase(),
		product.seat.trim().toLowerCase(),
	]);
}

/** How a listing request is answered beyond its body, as the faults on it decide. */
export interface ListingAnswer {
	/**
	 * The `systemError` fault that lets the listing through: the listing is created as usual, then the answer is the
	 * service's 500 `inventory.listings.systemError`, as when the listing service fails after storing it.
	 */
	systemErrorAfterCreate?: boolean;
}

export function handleListing(
	store: SandboxStore,
	req: http.IncomingMessage,
	res: http.ServerResponse,
	buffer: Buffer,
	answer: ListingAnswer = {},
): void {
	const token = requireBearer(store, req, res, 'listings');
	if (!token) return;
	if (!acceptsJson(req.headers.accept)) {
		refuse(
			store,
			res,
			406,
			ERROR_CODE.notAcceptable,
			`The Accept header must include application/json, got ${req.headers.accept ? `"${req.headers.accept}"` : 'none'}`,
		);
		return;
	}
	if (mediaType(req.headers['content-type']) !== 'application/json') {
		refuse(
			store,
			res,
			415,
			ERROR_CODE.unsupportedMediaType,
			`Content-Type must be application/json, got ${req.headers['content-type'] ? `"${req.headers['content-type']}"` : 'none'}`,
		);
		return;
	}
	if (!wellFormedAcceptLanguage(req.headers['accept-language'])) {
		refuse(
			store,
			res,
			400,
			ERROR_CODE.invalidAcceptLanguage,
			req.headers['accept-language']
				? `The Accept-Language header "${req.headers['accept-language']}" is not a well-formed language tag (e.g. en-US)`
				: 'The Accept-Language header is required (a language tag such as en-US)',
		);
		return;
	}
	const parsed = parseJson(buffer);
	if (!parsed.ok) {
		refuse(store, res, 400, ERROR_CODE.malformedJson, parsed.message, {
			serviceName: 'invalidRequest',
		});
		return;
	}
	const problems = validateListing(parsed.value, REQUIRE_UNIQUE_PRODUCT_EXTERNAL_IDS);
	if (problems.length > 0) {
		refuse(
			store,
			res,
			400,
			ERROR_CODE.validationFailed,
			`The listing is invalid: ${problems[0].message}`,
			{ details: problems, serviceName: invalidListingCodeName(problems[0].path) },
		);
		return;
	}
	const body = parsed.value as Record<string, unknown> & {
		eventId: number;
		externalListingId: number;
		products: Array<Record<string, unknown>>;
	};
	const service = store.serviceShapes;
	if (service && store.answers.inactiveEventIds.includes(body.eventId)) {
		sendInventoryError(res, 400, 'invalidEvent', INVENTORY_ERROR.invalidEvent);
		return;
	}
	const appListings = [...store.listings.values()].filter(
		(l) => l.consumerKey === token.consumerKey,
	);
	const duplicate = appListings.find((l) => l.body.externalListingId === body.externalListingId);
	if (duplicate) {
		if (service)
			sendInventoryError(
				res,
				400,
				'duplicateExternalListingId',
				duplicateExternalListingIdText(body.externalListingId),
			);
		else
			sendError(
				res,
				409,
				ERROR_CODE.duplicateExternalListingId,
				`A listing with externalListingId ${body.externalListingId} already exists (id ${duplicate.id})`,
				[
					{
						path: 'externalListingId',
						message: `externalListingId ${body.externalListingId} is already used by listing ${duplicate.id}`,
					},
				],
			);
		return;
	}
	if (service && store.answers.seatCheck) {
		// The service refuses a seat that one of the seller's listings of the event already holds.
		const listed = new Set(
			appListings.flatMap((l) =>
				(l.body.products as Array<Record<string, unknown>>)
					.map((product) => seatKey(l.body.eventId, product))
					.filter(Boolean),
			),
		);
		if (body.products.some((product) => listed.has(seatKey(body.eventId, product)))) {
			sendInventoryError(
				res,
				400,
				'duplicateSectionRowSeat',
				INVENTORY_ERROR.duplicateSectionRowSeat,
			);
			return;
		}
	}
	const record: ListingRecord = {
		id: newId(ID_PREFIX.listing),
		consumerKey: token.consumerKey,
		status: service ? store.answers.listingStatus : LISTING_STATUS_ON_CREATE,
		createdAt: new Date(store.now()).toISOString(),
		// Spec 3 and 6: only listings created while a webhook is active can ever be notified.
		eligibleForNotifications: store.activeSaleSubscriptions(token.consumerKey).length > 0,
		body: structuredClone(body),
		products: body.products.map((product) => ({
			externalId: product.externalId as string,
			row: product.row,
			seat: product.seat,
			ga: product.ga,
			sold: false,
		})),
	};
	store.listings.set(record.id, record);
	if (answer.systemErrorAfterCreate) {
		sendInventoryError(res, 500, 'systemError', INVENTORY_ERROR.systemError);
		return;
	}
	if (service) sendJson(res, SERVICE_LISTING_STATUS, { id: record.id, status: record.status });
	else sendJson(res, SUCCESS_STATUS.listing, listingResponse(record));
}
