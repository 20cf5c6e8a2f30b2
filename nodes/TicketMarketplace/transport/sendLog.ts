/** The recent sends, which the per-second rate and the classifier of 429s read: pure functions of a `SendLog`. */
import { RATE, SEND_LOG } from './pacingConfig';
import type { Send, SendRecord } from './pacingTypes';

export interface SendLog {
	/** Sends of the last SEND_LOG.keepMs, oldest first. */
	readonly records: readonly SendRecord[];
	/** Sends of the run so far. */
	readonly count: number;
	readonly lastSendAt: number;
}

export const EMPTY_LOG: SendLog = { records: [], count: 0, lastSendAt: Number.NEGATIVE_INFINITY };

/** The send that would go now, at `level` in flight (itself included). */
export function nextSend(log: SendLog, now: number, level: number): Send {
	return { at: now, index: log.count + 1, level };
}

export function logSend(log: SendLog, send: Send): SendLog {
	const records = [...log.records, { ...send, state: 'inFlight' as const }];
	let start = 0;
	while (start < records.length && send.at - records[start].at > SEND_LOG.keepMs) start++;
	return { records: records.slice(start), count: send.index, lastSendAt: send.at };
}

export function markSend(log: SendLog, send: Send, state: SendRecord['state']): SendLog {
	return {
		...log,
		records: log.records.map((record) =>
			record.index === send.index ? { ...record, state } : record,
		),
	};
}

/** Requests sent in the second before `send` and not refused (answered or still in flight), itself left out. */
export function acceptedBefore(log: SendLog, send: Send): number {
	return log.records.filter(
		(record) =>
			record.index !== send.index &&
			record.state !== 'refused' &&
			record.at < send.at &&
			record.at >= send.at - RATE.windowMs,
	).length;
}

/** The highest in-flight level of the logged sends the API answered (not refused). */
export function highestAnsweredLevel(log: SendLog): number {
	let highest = 0;
	for (const record of log.records)
		if (record.state === 'answered') highest = Math.max(highest, record.level);
	return highest;
}

/** The most answered sends (requests still in flight may yet be refused) in any second after `since`. */
export function busiestSecond(log: SendLog, since: number): number {
	const recent = log.records.filter((record) => record.state === 'answered' && record.at > since);
	let most = 0;
	let start = 0;
	for (let end = 0; end < recent.length; end++) {
		while (recent[end].at - recent[start].at >= RATE.windowMs) start++;
		most = Math.max(most, end - start + 1);
	}
	return most;
}

/** Of the logged sends from `fromIndex` to `toIndex`: how many, and how many refused. */
export function refusedOf(
	log: SendLog,
	fromIndex: number,
	toIndex: number,
): { sends: number; refused: number } {
	const span = log.records.filter((record) => record.index >= fromIndex && record.index <= toIndex);
	return {
		sends: span.length,
		refused: span.filter((record) => record.state === 'refused').length,
	};
}

/** Sends of the last `windowMs` the API did not refuse, oldest first. */
export function countedSince(log: SendLog, since: number): SendRecord[] {
	return log.records.filter((record) => record.state !== 'refused' && record.at > since);
}
