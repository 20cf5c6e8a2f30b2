/**
 * `prepublishOnly`: refuses `npm publish` anywhere but the tag-triggered GitHub Actions job
 * (.github/workflows/publish.yml), which publishes with `--provenance` so that n8n's package scanner and users can
 * check the package was built from this repository's tagged commit.
 *
 * The repository's .npmrc sets ignore-scripts=true, and npm then skips prepublishOnly: the workflow runs
 * `npm publish --ignore-scripts=false` so that this guard runs. A local `npm publish` skips it, but still fails:
 * package.json's publishConfig sets provenance, which npm can only generate inside a supported CI.
 */

/** Why this environment may not publish, or undefined when it may. */
export function publishRefusal(env: NodeJS.ProcessEnv): string | undefined {
	if (env.GITHUB_ACTIONS !== 'true')
		return 'this package is published only by its GitHub Actions workflow (.github/workflows/publish.yml, on a v*.*.* tag), not from a local machine: push a version tag instead.';
	if (env.npm_config_provenance !== 'true')
		return 'publish with provenance: npm publish --provenance --access public (as .github/workflows/publish.yml does).';
	return undefined;
}

if (require.main === module) {
	const refusal = publishRefusal(process.env);
	if (refusal) {
		process.stderr.write(`prepublishGuard: refusing to publish: ${refusal}\n`);
		process.exit(1);
	}
	process.stdout.write('prepublishGuard: GitHub Actions with --provenance: publishing.\n');
}
