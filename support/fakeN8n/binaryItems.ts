/**
 * Items carrying files as n8n's binary data (in memory, base64, as n8n's default mode keeps them), and the binary
 * helpers of an execute context over them: n8n-core's own assertBinaryData, and a buffer read that counts reads.
 */
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

export function fileItem(
	json: IDataObject,
	bytes: Buffer,
	fileName: string,
	property = 'data',
): INodeExecutionData {
	const binary: IBinaryData = {
		data: bytes.toString('base64'),
		mimeType: 'application/pdf',
		fileName,
		fileExtension: 'pdf',
	};
	return { json, binary: { [property]: binary } };
}

/** Adds n8n's binary helpers over `items` to a fake context; returns how often each item's file was read. */
export function withBinaryHelpers(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
): number[] {
	const reads = items.map(() => 0);
	Object.assign(context.helpers, {
		assertBinaryData: (itemIndex: number, property: string) =>
			assertBinaryData({ main: [items] }, context.getNode(), itemIndex, property, 0),
		getBinaryDataBuffer: async (itemIndex: number, property: string) => {
			reads[itemIndex]++;
			return Buffer.from(items[itemIndex].binary![property].data, 'base64');
		},
	});
	return reads;
}
