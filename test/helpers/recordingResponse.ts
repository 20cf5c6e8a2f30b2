import type { TriggerResponse } from './triggerContext';

/** Stands in for n8n's HTTP response in unit tests and records the one answer the node writes. */
export class RecordingResponse implements TriggerResponse {
	status: number | undefined;
	headers: Record<string, string> = {};
	text: string | undefined;
	writes = 0;

	writeHead(status: number, headers: Record<string, string> = {}): this {
		this.writes += 1;
		this.status = status;
		this.headers = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
		return this;
	}

	end(body?: string): this {
		this.text = body;
		return this;
	}

	get json(): Record<string, unknown> {
		if (this.text === undefined) throw new Error('Nothing was answered');
		return JSON.parse(this.text) as Record<string, unknown>;
	}
}
