/**
 * A load balancer in front of n8n's webhook processes, as a queue-mode deployment has one: each new connection goes
 * to the next process in turn. TCP-level, so what the marketplace sends arrives unchanged. Loopback only.
 */
import { connect, createServer, type Socket } from 'node:net';

import { listenOnLoopback } from './processes';

export interface RoundRobin {
	url: string;
	/** How many connections each target got, in target order. */
	connections: number[];
	stop(): Promise<void>;
}

export async function startRoundRobin(targetPorts: number[]): Promise<RoundRobin> {
	const connections = targetPorts.map(() => 0);
	const sockets = new Set<Socket>();
	let next = 0;
	const server = createServer((client) => {
		const index = next++ % targetPorts.length;
		connections[index]++;
		const upstream = connect(targetPorts[index], '127.0.0.1');
		for (const socket of [client, upstream]) {
			sockets.add(socket);
			socket.on('close', () => sockets.delete(socket));
			socket.on('error', () => {
				client.destroy();
				upstream.destroy();
			});
		}
		client.pipe(upstream).pipe(client);
	});
	const { url } = await listenOnLoopback(server);
	return {
		url,
		connections,
		stop: async () => {
			const closed = new Promise<void>((resolve) => server.close(() => resolve()));
			for (const socket of sockets) socket.destroy();
			await closed;
		},
	};
}
