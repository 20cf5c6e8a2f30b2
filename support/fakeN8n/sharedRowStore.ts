import { MemoryDeduplicationStore, recordValues } from './actionContext';

/** One call to the store, as the fault oracle needs to account for it. */
export interface StoreCall {
	caller: string;
	method: 'checkProcessedAndRecord' | 'removeProcessed' | 'getProcessedDataCount';
	values: string[];
	/** For checkProcessedAndRecord: the values the store answered as new. */
	answeredNew: string[];
	failed: boolean;
	/** Positions on the store's clock (every read and write ticks it); undefined when the call failed first. */
	readAt?: number;
	writeAt?: number;
}

/** A write that rewrote the row from a stale read: what it erased and what it brought back. */
export interface LostUpdate {
	caller: string;
	at: number;
	/** Values another call had written in between, now gone. */
	erased: string[];
	/** Values another call had removed in between, now back. */
	resurrected: string[];
}

const tick = async () => await new Promise<void>((resolve) => setImmediate(resolve));

/**
 * n8n's deduplication store as n8n 2.8 keeps it: one row per scope holding the whole list; each call reads it, waits
 * for the database (`gap`), and writes it back whole, without a lock. Two runs calling at once therefore lose each
 * other's writes, as in n8n; every such lost update is logged. A call can be made to fail before it changes
 * anything (as a locked database does) or after its write landed (as a connection lost before the answer does).
 * `helpers(caller)` tags each run's calls.
 */
export class SharedRowStore extends MemoryDeduplicationStore {
	readonly log: StoreCall[] = [];
	readonly lostUpdates: LostUpdate[] = [];
	/** 1-based numbers of the calls that fail (before they change anything). */
	readonly failingCalls = new Set<number>();
	/** 1-based numbers of the calls that fail after their write landed (a connection lost before the answer). */
	readonly failingAfterWriteCalls = new Set<number>();
	/** Told of every call as it starts (the oracle starts a second run from it). */
	onCall: (caller: string, callNumber: number) => void = () => {};
	private clock = 0;
	private readonly versions = new Map<string, number>();

	constructor(private readonly gap: () => Promise<void> = tick) {
		super();
	}

	private read(scope: string): { list: string[]; version: number; at: number } {
		return {
			list: [...(this.entries.get(scope) ?? [])],
			version: this.versions.get(scope) ?? 0,
			at: ++this.clock,
		};
	}

	/** Writes the row back; a stale read loses what others wrote or removed since. */
	private write(
		caller: string,
		scope: string,
		read: { list: string[]; version: number },
		list: string[],
		removed: Set<string> = new Set(),
	): number {
		const at = ++this.clock;
		const current = this.entries.get(scope) ?? new Set<string>();
		if ((this.versions.get(scope) ?? 0) !== read.version) {
			const written = new Set(list);
			const before = new Set(read.list);
			const erased = [...current].filter((value) => !written.has(value) && !removed.has(value));
			const resurrected = list.filter((value) => !current.has(value) && before.has(value));
			if (erased.length || resurrected.length)
				this.lostUpdates.push({ caller, at, erased, resurrected });
		}
		this.entries.set(scope, new Set(list));
		this.versions.set(scope, (this.versions.get(scope) ?? 0) + 1);
		return at;
	}

	private enter(caller: string, method: StoreCall['method'], values: Array<string | number>) {
		const number = this.log.length + 1;
		const call: StoreCall = {
			caller,
			method,
			values: values.map(String),
			answeredNew: [],
			failed: this.failingCalls.has(number) || this.failingAfterWriteCalls.has(number),
		};
		this.log.push(call);
		this.calls.push({ method, values });
		this.onCall(caller, number);
		if (this.failingCalls.has(number)) throw new Error('SQLITE_BUSY: database is locked');
		return { call, failsAfterWrite: this.failingAfterWriteCalls.has(number) };
	}

	private static lostAnswer(): never {
		throw new Error('Connection terminated unexpectedly');
	}

	override helpers(caller = 'run') {
		return {
			...super.helpers(),
			checkProcessedAndRecord: async (values: Array<string | number>, scope: string) => {
				const { call, failsAfterWrite } = this.enter(caller, 'checkProcessedAndRecord', values);
				const read = this.read(scope);
				call.readAt = read.at;
				await this.gap();
				const list = [...read.list];
				const result = recordValues(values, {
					has: (value) => list.includes(value),
					add: (value) => list.push(value),
				});
				call.answeredNew = result.new.map(String);
				call.writeAt = this.write(caller, scope, read, list);
				if (failsAfterWrite) SharedRowStore.lostAnswer();
				return result;
			},
			removeProcessed: async (values: Array<string | number>, scope: string) => {
				const { call, failsAfterWrite } = this.enter(caller, 'removeProcessed', values);
				const read = this.read(scope);
				call.readAt = read.at;
				await this.gap();
				const gone = new Set(values.map(String));
				const list = read.list.filter((value) => !gone.has(value));
				call.writeAt = this.write(caller, scope, read, list, gone);
				if (failsAfterWrite) SharedRowStore.lostAnswer();
			},
			getProcessedDataCount: async (scope: string) => {
				const { call, failsAfterWrite } = this.enter(caller, 'getProcessedDataCount', []);
				const read = this.read(scope);
				call.readAt = read.at;
				await this.gap();
				if (failsAfterWrite) SharedRowStore.lostAnswer();
				return read.list.length;
			},
		};
	}
}
