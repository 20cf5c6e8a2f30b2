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
import { jsonBody, requireJsonContentType, sendError, sendJson } from '../http';
import { newId } from '../records';
import type { ListingRecord } from '../records';
import type { SandboxStore } from '../store';
import { validateListing } from '../validation';
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

export function handleListing(
	store: SandboxStore,
	req: http.IncomingMessage,
	res: http.ServerResponse,
	buffer: Buffer,
): void {
	const token = requireBearer(store, req, res);
	if (!token) return;
	if (!acceptsJson(req.headers.accept)) {
		sendError(
			res,
			406,
			ERROR_CODE.notAcceptable,
			`The Accept header must include application/json, got ${req.headers.accept ? `"${req.headers.accept}"` : 'none'}`,
		);
		return;
	}
	if (!requireJsonContentType(req, res)) return;
	if (!wellFormedAcceptLanguage(req.headers['accept-language'])) {
		sendError(
			res,
			400,
			ERROR_CODE.invalidAcceptLanguage,
			req.headers['accept-language']
				? `The Accept-Language header "${req.headers['accept-language']}" is not a well-formed language tag (e.g. en-US)`
				: 'The Accept-Language header is required (a language tag such as en-US)',
		);
		return;
	}
	const parsed = jsonBody(req, res, buffer);
	if (!parsed) return;
	const problems = validateListing(parsed.value, REQUIRE_UNIQUE_PRODUCT_EXTERNAL_IDS);
	if (problems.length > 0) {
		sendError(
			res,
			400,
			ERROR_CODE.validationFailed,
			`The listing is invalid: ${problems[0].message}`,
			problems,
		);
		return;
	}
	const body = parsed.value as Record<string, unknown> & {
		externalListingId: number;
		products: Array<Record<string, unknown>>;
	};
	const duplicate = [...store.listings.values()].find(
		(l) =>
			l.consumerKey === token.consumerKey && l.body.externalListingId === body.externalListingId,
	);
	if (duplicate) {
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
	const record: ListingRecord = {
		id: newId(ID_PREFIX.listing),
		consumerKey: token.consumerKey,
		status: LISTING_STATUS_ON_CREATE,
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
	sendJson(res, SUCCESS_STATUS.listing, listingResponse(record));
}
