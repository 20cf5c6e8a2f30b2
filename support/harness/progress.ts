/** Progress lines for long-running scripts: every step is printed with the time since the script started. */
const startedAt = Date.now();

let quiet = false;

/** Tests that run many steps may silence the narration; failures still surface through thrown errors. */
export function setQuiet(value: boolean): void {
	quiet = value;
}

export function elapsed(): string {
	return `${((Date.now() - startedAt) / 1000).toFixed(1)}s`;
}

export function step(message: string): void {
	if (!quiet) process.stdout.write(`[${elapsed().padStart(7)}] ${message}\n`);
}

/** Prints a heartbeat while a long silent task (an npm install) runs; returns the function that stops it. */
export function heartbeat(label: string, everyMs = 15_000): () => void {
	const began = Date.now();
	const timer = setInterval(() => {
		step(`${label}: still running (${Math.round((Date.now() - began) / 1000)}s)`);
	}, everyMs);
	timer.unref();
	return () => clearInterval(timer);
}
