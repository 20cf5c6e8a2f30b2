import type { IDataObject } from 'n8n-workflow';

/** The API's answer goes out as returned; an answer that is not a JSON object is wrapped, as n8n items need one. */
export function toOutputJson(response: unknown): IDataObject {
	if (response && typeof response === 'object' && !Array.isArray(response))
		return response as IDataObject;
	return { response: (response ?? null) as IDataObject['response'] };
}
