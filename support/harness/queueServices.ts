/**
 * What n8n's queue mode runs on: PostgreSQL (its database, shared by every n8n process) and Redis (the job queue),
 * from Debian's packages, each in a temporary folder on a free loopback port, without persistence beyond the run.
 * PostgreSQL refuses to run as root, so when the suite runs as root it runs as Debian's `postgres` user.
 */
import { chmodSync, chownSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { ensureDebianPackages } from './debian';
import {
	cleanEnv,
	freePort,
	runCommand,
	startLoggedProcess,
	type LoggedProcess,
} from './processes';
import { step } from './progress';

const POSTGRES_BIN = process.env.TM_POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';
const REDIS_SERVER = '/usr/bin/redis-server';

export const QUEUE_DATABASE = { name: 'n8n', user: 'n8n' };

export async function ensureQueueServicesInstalled(): Promise<void> {
	await ensureDebianPackages('queue mode', [
		{ binary: REDIS_SERVER, name: 'redis-server' },
		{ binary: join(POSTGRES_BIN, 'postgres'), name: 'postgresql' },
	]);
}

/** Runs a PostgreSQL binary as the `postgres` user when this process is root (as CI is), else as itself. */
function asPostgresUser(binary: string, args: string[]): { command: string; args: string[] } {
	const path = join(POSTGRES_BIN, binary);
	return process.getuid?.() === 0
		? { command: 'runuser', args: ['-u', 'postgres', '--', path, ...args] }
		: { command: path, args };
}

export interface Service extends LoggedProcess {
	port: number;
}

/** The options that reach the run's PostgreSQL (loopback, its port) as the queue's database user. */
function serverOptions(port: number): string[] {
	return ['-h', '127.0.0.1', '-p', String(port), '-U', QUEUE_DATABASE.user];
}

export async function startPostgres(folder: string): Promise<Service> {
	const dataDir = join(folder, 'postgres');
	mkdirSync(dataDir, { recursive: true });
	if (process.getuid?.() === 0) {
		const { uid, gid } = postgresUser();
		chownSync(folder, uid, gid);
		chownSync(dataDir, uid, gid);
	}
	chmodSync(dataDir, 0o700);
	const initdb = asPostgresUser('initdb', [
		'-D',
		dataDir,
		'-A',
		'trust',
		'-U',
		QUEUE_DATABASE.user,
		'--no-sync',
	]);
	await runCommand(initdb.command, initdb.args, {
		cwd: folder,
		timeoutMs: 120_000,
		label: 'initdb',
	});
	const port = await freePort();
	// Loopback only, the socket in the run's folder, no durability (a test database lives for one run).
	const server = asPostgresUser('postgres', [
		'-D',
		dataDir,
		'-p',
		String(port),
		'-k',
		dataDir,
		'-c',
		'listen_addresses=127.0.0.1',
		'-c',
		'fsync=off',
		'-c',
		'synchronous_commit=off',
		'-c',
		'full_page_writes=off',
	]);
	const postgres = await startLoggedProcess({
		name: 'PostgreSQL',
		command: server.command,
		args: server.args,
		cwd: folder,
		env: cleanEnv(),
		logFile: join(folder, 'postgres.log'),
		ready: /database system is ready to accept connections/,
		readyTimeoutMs: 60_000,
	});
	const createdb = asPostgresUser('createdb', [...serverOptions(port), QUEUE_DATABASE.name]);
	await runCommand(createdb.command, createdb.args, {
		cwd: folder,
		timeoutMs: 60_000,
		label: 'createdb',
	});
	step(`PostgreSQL: listening on 127.0.0.1:${port}, database "${QUEUE_DATABASE.name}"`);
	return { ...postgres, port };
}

export async function startRedis(folder: string): Promise<Service> {
	const port = await freePort();
	const redis = await startLoggedProcess({
		name: 'Redis',
		command: REDIS_SERVER,
		args: [
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--save',
			'',
			'--appendonly',
			'no',
			'--dir',
			folder,
		],
		cwd: folder,
		env: cleanEnv(),
		logFile: join(folder, 'redis.log'),
		ready: /Ready to accept connections/,
		readyTimeoutMs: 30_000,
	});
	step(`Redis: listening on 127.0.0.1:${port}`);
	return { ...redis, port };
}

/** SQL against the run's database (psql), for what the tests read back: executions, their status and mode. */
export async function queryPostgres(port: number, sql: string): Promise<string[][]> {
	const psql = join(POSTGRES_BIN, 'psql');
	const { output } = await runCommand(
		psql,
		[...serverOptions(port), '-d', QUEUE_DATABASE.name, '-At', '-F', '\t', '-c', sql],
		{
			cwd: '/',
			timeoutMs: 30_000,
			label: 'psql',
		},
	);
	return output
		.split('\n')
		.filter((line) => line.length > 0)
		.map((line) => line.split('\t'));
}

function postgresUser(): { uid: number; gid: number } {
	// Debian's postgresql package creates this user; its ids are read from /etc/passwd rather than assumed.
	const line = readFileSync('/etc/passwd', 'utf8')
		.split('\n')
		.find((entry) => entry.startsWith('postgres:'));
	if (!line)
		throw new Error("the postgres user does not exist (is Debian's postgresql installed?)");
	const [, , uid, gid] = line.split(':');
	return { uid: Number(uid), gid: Number(gid) };
}
