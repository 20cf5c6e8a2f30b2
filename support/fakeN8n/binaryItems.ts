/**
 * Items carrying files as n8n's binary data, and the binary helpers of an execute context over them: n8n-core's own
 * assertBinaryData, a buffer read and a stream that count reads. A file is kept in memory (base64, n8n 1.x's default
 * mode) or, given `stored`, behind an id (n8n 2.x's filesystem mode, and S3), read through getBinaryStream.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { assertBinaryData } from 'n8n-core/dist/execution-engine/node-execution-context/utils/binary-helper-functions';

/** A small PDF with a binary comment line, as real PDFs have: not UTF-8, so nock hands its body over as hex. */
export function pdfBytes(label: string): Buffer {
	return Buffer.concat([
		Buffer.from('%PDF-1.7\n%'),
		Buffer.from([0xe2, 0xe3, 0xcf, 0xd3]),
		Buffer.from(`\n1 0 obj <</Ticket (${label})>> endobj\n%%EOF\n`),
	]);
}

/** The files filesystem mode keeps, by id; a test may replace or delete one, as a disk would. */
export const storedFiles = new Map<string, Buffer>();

/** n8n's binary data modes, as an item shows them. */
export type BinaryMode = 'memory' | 'filesystem';

export function fileItem(
	json: IDataObject,
	bytes: Buffer,
	fileName: string,
	property = 'data',
	mode: BinaryMode = 'memory',
): INodeExecutionData {
	const file = { mimeType: 'application/pdf', fileName, fileExtension: 'pdf' };
	let binary: IBinaryData = { ...file, data: bytes.toString('base64') };
	if (mode === 'filesystem') {
		// As n8n's filesystem mode writes it: the mode's name where the bytes would be, and the file's id.
		const id = `filesystem-v2:workflows/1/executions/temp/binary_data/${randomUUID()}`;
		storedFiles.set(id, bytes);
		binary = { ...file, data: 'filesystem-v2', id, fileSize: `${bytes.length} B` };
	}
	return { json, binary: { [property]: binary } };
}

/** How many bytes each chunk of a stored file's stream holds: a PDF of these tests comes in several. */
export const STREAM_CHUNK = 16;

/** A stored file; a missing one fails as n8n's store does. */
function storedBytes(id: string): Buffer {
	const bytes = storedFiles.get(id);
	if (!bytes) throw Object.assign(new Error(`File not found: ${id}`), { code: 'ENOENT' });
	return bytes;
}

/** A stored file as n8n's getBinaryStream hands it over, in chunks. */
export function storedStream(id: string): Readable {
	const bytes = storedBytes(id);
	const chunks = [];
	for (let at = 0; at < bytes.length; at += STREAM_CHUNK)
		chunks.push(bytes.subarray(at, at + STREAM_CHUNK));
	return Readable.from(chunks, { objectMode: false });
}

/** Adds n8n's binary helpers over `items` to a fake context; returns how often each item's file was read. */
export function withBinaryHelpers(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
): number[] {
	const reads = items.map(() => 0);
	const itemOf = (id: string) =>
		items.findIndex((item) => Object.values(item.binary ?? {}).some((b) => b.id === id));
	Object.assign(context.helpers, {
		assertBinaryData: (itemIndex: number, property: string) =>
			assertBinaryData({ main: [items] }, context.getNode(), itemIndex, property, 0),
		getBinaryDataBuffer: async (itemIndex: number, property: string) => {
			reads[itemIndex]++;
			const { id, data } = items[itemIndex].binary![property];
			return id ? storedBytes(id) : Buffer.from(data, 'base64');
		},
		getBinaryStream: async (id: string) => {
			reads[itemOf(id)]++;
			return storedStream(id);
		},
	});
	return reads;
}
