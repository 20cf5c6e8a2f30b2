/** Small statistics and formatting helpers for the benchmark report. */

export interface Distribution {
	count: number;
	min: number;
	p50: number;
	p95: number;
	max: number;
	mean: number;
}

/** Nearest-rank percentile (the value below which `p` percent of the samples fall); NaN for no samples. */
export function percentile(sorted: number[], p: number): number {
	if (sorted.length === 0) return Number.NaN;
	const rank = Math.ceil((p / 100) * sorted.length);
	return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export function distribution(values: number[]): Distribution {
	const sorted = [...values].sort((a, b) => a - b);
	const sum = sorted.reduce((total, value) => total + value, 0);
	return {
		count: sorted.length,
		min: sorted[0] ?? Number.NaN,
		p50: percentile(sorted, 50),
		p95: percentile(sorted, 95),
		max: sorted[sorted.length - 1] ?? Number.NaN,
		mean: sorted.length ? sum / sorted.length : Number.NaN,
	};
}

export function median(values: number[]): number {
	return percentile(
		[...values].sort((a, b) => a - b),
		50,
	);
}

/** Per second, from a count and a duration in milliseconds. */
export function perSecond(count: number, wallMs: number): number {
	return wallMs > 0 ? (count * 1000) / wallMs : Number.NaN;
}

export function formatNumber(value: number, digits = 1): string {
	if (!Number.isFinite(value)) return '-';
	return value.toLocaleString('en-US', {
		minimumFractionDigits: digits,
		maximumFractionDigits: digits,
	});
}

/** A plain-text table with right-aligned numbers and left-aligned text. */
export function formatTable(headers: string[], rows: string[][]): string {
	const widths = headers.map((header, column) =>
		Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
	);
	const numeric = (text: string) => /^[-+]?[\d,.]+( ?[a-z%/]+)?$|^-$/.test(text);
	const line = (cells: string[]) =>
		cells
			.map((cell, column) =>
				numeric(cell) ? cell.padStart(widths[column]) : cell.padEnd(widths[column]),
			)
			.join('  ')
			.trimEnd();
	return [
		line(headers),
		widths.map((width) => '-'.repeat(width)).join('  '),
		...rows.map(line),
	].join('\n');
}
