// @n8n/scan-community-package ships no type declarations; this is the part scripts/lintPacked.ts uses.
declare module '@n8n/scan-community-package/scanner/scanner.mjs' {
	export interface AnalysisResult {
		passed: boolean;
		message?: string;
		details?: string;
	}
	/** ESLint over packageDir's files matching filePatterns, with the scanner's config and inline config ignored. */
	export function analyzePackage(
		packageDir: string,
		filePatterns?: string[],
	): Promise<AnalysisResult>;
	/** What the scanner lints in the provenance-attested source checkout. */
	export const SOURCE_FILE_PATTERNS: string[];
}
