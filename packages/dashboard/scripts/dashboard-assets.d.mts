/** Every asset of the page by file name, as text (the bundled script and style, the two HTML documents). */
export function buildAssets(): Promise<Record<string, string>>;
/** The text of src/assets.generated.ts for `assets`. */
export function generatedModule(assets: Record<string, string>): string;
