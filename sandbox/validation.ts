/** Request-body validation for the Partner API bodies of spec 2.3 and 2.4. Returns problems; never throws. */

export interface Problem {
	path: string;
	message: string;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNonEmptyString(value: unknown): value is string {
	return typeof value === 'string' && value.trim().length > 0;
}

function isHttpUrl(value: unknown): boolean {
	if (typeof value !== 'string') return false;
	try {
		const url = new URL(value);
		return url.protocol === 'http:' || url.protocol === 'https:';
	} catch {
		return false;
	}
}

function describe(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'an array';
	return typeof value === 'string' ? `a string` : `${typeof value}`;
}

/** Checks an object field and returns it when it is an object, recording a problem otherwise. */
function objectAt(parent: Json, key: string, path: string, problems: Problem[]): Json | undefined {
	const value = parent[key];
	if (isObject(value)) return value;
	problems.push({
		path,
		message:
			value === undefined
				? `${path} is required (an object)`
				: `${path} must be an object, got ${describe(value)}`,
	});
	return undefined;
}

function requireNonEmptyString(parent: Json, key: string, path: string, problems: Problem[]): void {
	const value = parent[key];
	if (isNonEmptyString(value)) return;
	problems.push({
		path,
		message:
			value === undefined
				? `${path} is required (a non-empty string)`
				: `${path} must be a non-empty string, got ${describe(value)}`,
	});
}

function requireInteger(parent: Json, key: string, path: string, problems: Problem[]): void {
	const value = parent[key];
	if (typeof value === 'number' && Number.isInteger(value)) return;
	problems.push({
		path,
		message:
			value === undefined
				? `${path} is required (an integer)`
				: `${path} must be an integer, got ${describe(value)}${typeof value === 'number' ? ` ${value}` : ''}`,
	});
}

function requireStringArray(parent: Json, key: string, path: string, problems: Problem[]): void {
	const value = parent[key];
	if (!Array.isArray(value) || value.length === 0) {
		problems.push({
			path,
			message:
				value === undefined
					? `${path} is required (a non-empty array of strings)`
					: `${path} must be a non-empty array of strings`,
		});
		return;
	}
	value.forEach((entry, index) => {
		if (!isNonEmptyString(entry)) {
			problems.push({
				path: `${path}[${index}]`,
				message: `${path}[${index}] must be a non-empty string, got ${describe(entry)}`,
			});
		}
	});
}

function requireHttpUrl(parent: Json, key: string, path: string, problems: Problem[]): void {
	const value = parent[key];
	if (isHttpUrl(value)) return;
	problems.push({
		path,
		message:
			value === undefined
				? `${path} is required (an http or https URL)`
				: `${path} must be an http or https URL`,
	});
}

/** Validates a webhook subscription body (spec 2.3). */
export function validateSubscription(body: unknown): Problem[] {
	const problems: Problem[] = [];
	if (!isObject(body))
		return [{ path: '', message: 'The body must be a JSON object (a webhook subscription)' }];
	const callback = objectAt(body, 'callback', 'callback', problems);
	if (callback) {
		requireHttpUrl(callback, 'url', 'callback.url', problems);
		const auth = objectAt(callback, 'auth', 'callback.auth', problems);
		if (auth) {
			requireNonEmptyString(auth, 'authType', 'callback.auth.authType', problems);
			requireHttpUrl(auth, 'tokenEndPoint', 'callback.auth.tokenEndPoint', problems);
			const oauthRequest = objectAt(auth, 'oauthRequest', 'callback.auth.oauthRequest', problems);
			if (oauthRequest) {
				requireNonEmptyString(
					oauthRequest,
					'clientId',
					'callback.auth.oauthRequest.clientId',
					problems,
				);
				requireNonEmptyString(
					oauthRequest,
					'clientSecret',
					'callback.auth.oauthRequest.clientSecret',
					problems,
				);
				if (oauthRequest.grantType !== 'client_credentials') {
					problems.push({
						path: 'callback.auth.oauthRequest.grantType',
						message: 'callback.auth.oauthRequest.grantType must be "client_credentials"',
					});
				}
			}
		}
	}
	const subscription = objectAt(body, 'subscription', 'subscription', problems);
	if (subscription) requireStringArray(subscription, 'listing', 'subscription.listing', problems);
	return problems;
}

/** Validates a listing body (spec 2.4); every field is required except row and seat of general-admission products. */
export function validateListing(body: unknown, requireUniqueProductIds: boolean): Problem[] {
	const problems: Problem[] = [];
	if (!isObject(body)) return [{ path: '', message: 'The body must be a JSON object (a listing)' }];
	requireInteger(body, 'eventId', 'eventId', problems);
	const price = objectAt(body, 'pricePerProduct', 'pricePerProduct', problems);
	if (price) {
		const amount = price.amount;
		if (!(typeof amount === 'number' && Number.isFinite(amount) && amount > 0)) {
			problems.push({
				path: 'pricePerProduct.amount',
				message: 'pricePerProduct.amount must be a number greater than 0',
			});
		}
		const currency = price.currency;
		if (!(typeof currency === 'string' && /^[A-Za-z]{3}$/.test(currency))) {
			problems.push({
				path: 'pricePerProduct.currency',
				message: 'pricePerProduct.currency must be a three-letter currency code',
			});
		}
	}
	requireInteger(body, 'externalListingId', 'externalListingId', problems);
	const products = body.products;
	if (!Array.isArray(products) || products.length === 0) {
		problems.push({
			path: 'products',
			message:
				products === undefined
					? 'products is required (a non-empty array)'
					: 'products must be a non-empty array',
		});
	} else {
		const seen = new Set<string>();
		products.forEach((product, index) => {
			const path = `products[${index}]`;
			if (!isObject(product)) {
				problems.push({ path, message: `${path} must be an object` });
				return;
			}
			requireNonEmptyString(product, 'externalId', `${path}.externalId`, problems);
			if (typeof product.productType !== 'string') {
				problems.push({
					path: `${path}.productType`,
					message: `${path}.productType must be a string`,
				});
			}
			if (typeof product.ga !== 'boolean') {
				problems.push({ path: `${path}.ga`, message: `${path}.ga must be a boolean` });
			} else if (!product.ga) {
				// A seated (non general-admission) product is identified by its row and seat.
				requireNonEmptyString(product, 'row', `${path}.row`, problems);
				requireNonEmptyString(product, 'seat', `${path}.seat`, problems);
			} else {
				for (const key of ['row', 'seat']) {
					if (
						product[key] !== undefined &&
						product[key] !== null &&
						typeof product[key] !== 'string'
					) {
						problems.push({
							path: `${path}.${key}`,
							message: `${path}.${key} must be a string when given`,
						});
					}
				}
			}
			if (requireUniqueProductIds && isNonEmptyString(product.externalId)) {
				if (seen.has(product.externalId)) {
					problems.push({
						path: `${path}.externalId`,
						message: `${path}.externalId "${product.externalId}" repeats an earlier product's externalId`,
					});
				}
				seen.add(product.externalId);
			}
		});
	}
	requireStringArray(body, 'stockType', 'stockType', problems);
	requireInteger(body, 'paymentType', 'paymentType', problems);
	return problems;
}
