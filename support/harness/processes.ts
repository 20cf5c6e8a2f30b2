/**
 * Child processes and cleanup. Every long-lived thing the harness starts (n8n, the sandbox, temp folders) is
 * registered here, so it is stopped on success, on failure, on Ctrl-C (SIGINT/SIGTERM) and, as a last resort,
 * synchronously when the process exits.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname } from 'node:path';

import { step } from './progress';

export interface Stoppable {
	name: string;
	/** Orderly stop. */
	stop(): Promise<void>;
	/** Synchronous last resort, used from the process 'exit' event where nothing async can run. */
	stopNow(): void;
}

const live = new Set<Stoppable>();
let signalHandlersInstalled = false;

export function track(resource: Stoppable): () => void {
	installSignalHandlers();
	live.add(resource);
	return () => live.delete(resource);
}

/** Stops everything still registered, newest first (n8n before the sandbox it talks to, folders last). */
export async function stopAll(): Promise<void> {
	const resources = [...live].reverse();
	for (const resource of resources) {
		live.delete(resource);
		try {
			await resource.stop();
		} catch (error) {
			process.stderr.write(`cleanup of ${resource.name} failed: ${String(error)}\n`);
			resource.stopNow();
		}
	}
}

function installSignalHandlers(): void {
	if (signalHandlersInstalled) return;
	signalHandlersInstalled = true;
	let stopping = false;
	const onSignal = (signal: NodeJS.Signals, exitCode: number) => {
		// Ctrl-C often arrives twice (from the terminal and relayed by npm/tsx): the second must not kill us mid-cleanup.
		if (stopping) return;
		stopping = true;
		process.stderr.write(`\n${signal}: stopping everything the harness started...\n`);
		void stopAll().finally(() => process.exit(exitCode));
	};
	process.on('SIGINT', () => onSignal('SIGINT', 130));
	process.on('SIGTERM', () => onSignal('SIGTERM', 143));
	process.on('SIGHUP', () => onSignal('SIGHUP', 129));
	process.on('exit', () => {
		for (const resource of live) resource.stopNow();
		live.clear();
	});
}

/**
 * Environment for child tools without what the caller's own runner put there: npm's npm_config_* values (e.g.
 * ignore-scripts, which would stop sqlite3 from building) and jest's NODE_ENV=test (n8n exits silently with it).
 */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) {
		const lower = key.toLowerCase();
		if (lower.startsWith('npm_') || lower.startsWith('jest_') || key === 'NODE_ENV') continue;
		env[key] = value;
	}
	return { ...env, ...extra };
}

export async function freePort(): Promise<number> {
	const server = createServer();
	server.listen(0, '127.0.0.1');
	await once(server, 'listening');
	const address = server.address();
	const port = typeof address === 'object' && address ? address.port : 0;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	if (!port) throw new Error('could not obtain a free port');
	return port;
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	if (child.pid === undefined) return;
	try {
		process.kill(-child.pid, signal);
	} catch {
		// The group is already gone.
	}
}

function hasExited(child: ChildProcess): boolean {
	return child.exitCode !== null || child.signalCode !== null;
}

async function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
	if (hasExited(child)) return true;
	return await new Promise<boolean>((resolve) => {
		const timer = setTimeout(() => resolve(false), timeoutMs);
		child.once('exit', () => {
			clearTimeout(timer);
			resolve(true);
		});
	});
}

/** SIGTERM to the whole process group (n8n and its task runner), SIGKILL if it outlives the grace period. */
export async function stopProcessGroup(child: ChildProcess, graceMs: number): Promise<void> {
	if (!hasExited(child)) {
		killGroup(child, 'SIGTERM');
		if (!(await waitForExit(child, graceMs))) {
			killGroup(child, 'SIGKILL');
			await waitForExit(child, 5_000);
		}
	}
	// Children of the leader (the task runner) may outlive it: the group goes too.
	killGroup(child, 'SIGKILL');
}

/** Spawns a process as the leader of its own group, so it and all its children can be stopped together. */
export function spawnGroup(command: string, args: string[], options: SpawnOptions): ChildProcess {
	return spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
}

export interface CommandResult {
	code: number;
	output: string;
}

/**
 * Runs a command to completion (bounded by timeoutMs), tracked for Ctrl-C. Output is collected, not printed,
 * and is included in the error when the command fails.
 */
export async function runCommand(
	command: string,
	args: string[],
	options: {
		cwd: string;
		env?: NodeJS.ProcessEnv;
		timeoutMs: number;
		label?: string;
		onLine?: (line: string) => void;
	},
): Promise<CommandResult> {
	const label = options.label ?? `${command} ${args.join(' ')}`;
	const child = spawnGroup(command, args, { cwd: options.cwd, env: options.env ?? cleanEnv() });
	const untrack = track({
		name: label,
		stop: () => stopProcessGroup(child, 2_000),
		stopNow: () => killGroup(child, 'SIGKILL'),
	});
	let output = '';
	const collect = (chunk: Buffer) => {
		const text = chunk.toString();
		output += text;
		if (options.onLine) for (const line of text.split('\n')) if (line.trim()) options.onLine(line);
	};
	child.stdout?.on('data', collect);
	child.stderr?.on('data', collect);
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		void stopProcessGroup(child, 2_000);
	}, options.timeoutMs);
	try {
		const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
		clearTimeout(timer);
		const result = { code: code ?? (signal ? 128 : 1), output };
		if (result.code !== 0) {
			const reason = timedOut
				? `timed out after ${options.timeoutMs} ms`
				: `failed (exit ${code ?? signal})`;
			throw new Error(`${label} ${reason}:\n${output.slice(-4000)}`);
		}
		return result;
	} finally {
		clearTimeout(timer);
		untrack();
		killGroup(child, 'SIGKILL');
	}
}

export interface LoggedProcess {
	/** Everything the process printed so far. */
	output(): string;
	/** Resolves when the output matches (bounded by timeoutMs); rejects if the process exits first. */
	waitForOutput(pattern: RegExp, timeoutMs: number): Promise<void>;
	stop(): Promise<void>;
	/** Whether any process of its group is still alive. */
	isRunning(): boolean;
}

/**
 * Starts a long-running server (n8n, Postgres, Redis) as its own process group, appends its output to a log file
 * (kept for post-mortems; after a restart it still holds the first run), tracks it for Ctrl-C and resolves once it
 * printed `ready`. A process that exits first, or never prints it, is stopped and the start fails.
 */
export async function startLoggedProcess(options: {
	name: string;
	command: string;
	args: string[];
	cwd: string;
	env: NodeJS.ProcessEnv;
	logFile: string;
	ready: RegExp;
	readyTimeoutMs: number;
}): Promise<LoggedProcess> {
	mkdirSync(dirname(options.logFile), { recursive: true });
	appendFileSync(options.logFile, '');
	const child = spawnGroup(options.command, options.args, { cwd: options.cwd, env: options.env });
	let output = '';
	const listeners = new Set<() => void>();
	const onData = (chunk: Buffer) => {
		const text = chunk.toString();
		output += text;
		appendFileSync(options.logFile, text);
		for (const listener of listeners) listener();
	};
	child.stdout?.on('data', onData);
	child.stderr?.on('data', onData);

	let stopping: Promise<void> | undefined;
	const stop = () => (stopping ??= stopProcessGroup(child, 15_000).then(() => untrack()));
	const untrack = track({ name: options.name, stop, stopNow: () => killGroup(child, 'SIGKILL') });

	const waitForOutput = (pattern: RegExp, timeoutMs: number) =>
		new Promise<void>((resolve, reject) => {
			const check = () => {
				if (pattern.test(output)) finish();
			};
			const timer = setTimeout(
				() =>
					finish(
						new Error(
							`${options.name} did not print ${pattern} within ${timeoutMs} ms; see ${options.logFile}`,
						),
					),
				timeoutMs,
			);
			const onExit = () =>
				finish(
					new Error(`${options.name} exited while waiting for ${pattern}:\n${output.slice(-3000)}`),
				);
			const finish = (error?: Error) => {
				clearTimeout(timer);
				listeners.delete(check);
				child.off('exit', onExit);
				if (error) reject(error);
				else resolve();
			};
			listeners.add(check);
			child.once('exit', onExit);
			check();
		});

	try {
		await waitForOutput(options.ready, options.readyTimeoutMs);
	} catch (error) {
		await stop();
		throw error;
	}
	const isRunning = () => {
		if (child.pid === undefined) return false;
		try {
			process.kill(-child.pid, 0);
			return true;
		} catch {
			return false;
		}
	};
	return { output: () => output, waitForOutput, stop, isRunning };
}

/** Starts `server` on a free loopback port and returns its base URL (http). */
export async function listenOnLoopback(
	server: Pick<Server, 'listen' | 'address' | 'once'>,
): Promise<{ url: string; port: number }> {
	server.listen(0, '127.0.0.1');
	await once(server as Server, 'listening');
	const address = server.address();
	const port = typeof address === 'object' && address ? address.port : 0;
	if (!port) throw new Error('could not listen on a loopback port');
	return { url: `http://127.0.0.1:${port}`, port };
}

/**
 * What a harness started, newest last: remember() tracks each resource for Ctrl-C, stop() undoes them newest first
 * (also after a failed start), once.
 */
export function startedResources(): { remember(resource: Stoppable): void; stop(): Promise<void> } {
	const started: Stoppable[] = [];
	let stopping: Promise<void> | undefined;
	return {
		remember(resource) {
			const untrack = track(resource);
			started.push({
				...resource,
				stop: async () => {
					untrack();
					await resource.stop();
				},
			});
		},
		stop: () =>
			(stopping ??= (async () => {
				for (const resource of started.splice(0).reverse()) {
					step(resource.name);
					await resource.stop();
				}
			})()),
	};
}

/** A script's entry: exits with what `main` returns; on a throw, says why, stops what was started, exits 1. */
export function runScript(label: string, main: () => Promise<number>): void {
	main().then(
		(code) => process.exit(code),
		async (error: unknown) => {
			process.stderr.write(
				`${label}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
			);
			await stopAll();
			process.exit(1);
		},
	);
}
