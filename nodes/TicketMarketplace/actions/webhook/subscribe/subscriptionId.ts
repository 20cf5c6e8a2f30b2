/** The spec says the answer holds a unique identifier but not under which name: these are the likely ones. */
const ID_KEYS =
	'subscriptionId subscription_id webhookId webhook_id id uuid identifier uniqueId'.split(' ');
const CONTAINER_KEYS = ['data', 'subscription', 'webhook', 'result'];

type FoundId = { value: string; field: string };

function idAt(record: Record<string, unknown>, prefix: string): FoundId | undefined {
	for (const key of ID_KEYS) {
		const value = record[key];
		if (
			(typeof value === 'string' && value.trim() !== '') ||
			(typeof value === 'number' && Number.isFinite(value))
		) {
			return { value: String(value), field: `${prefix}${key}` };
		}
	}
	return undefined;
}

/** Looks at the top level first, then one level into the usual wrappers (data.id, subscription.id, ...). */
export function findSubscriptionId(response: unknown): FoundId | undefined {
	// A bare text answer counts only if it looks like an identifier (has a digit), not like "Created".
	if (typeof response === 'string' && /^[\w-]{6,}$/.test(response.trim()) && /\d/.test(response))
		return { value: response.trim(), field: '(whole response)' };
	if (!response || typeof response !== 'object' || Array.isArray(response)) return undefined;
	const record = response as Record<string, unknown>;
	const top = idAt(record, '');
	if (top) return top;
	for (const container of CONTAINER_KEYS) {
		const nested = record[container];
		if (nested && typeof nested === 'object' && !Array.isArray(nested)) {
			const found = idAt(nested as Record<string, unknown>, `${container}.`);
			if (found) return found;
		}
	}
	return undefined;
}
