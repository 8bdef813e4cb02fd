// Writes src/assets.generated.ts: the page built from ui/ (see dashboard-assets.mjs) as strings,
// so the dashboard's page ships inside the package's code and is found from dist/ and from a
// bundle alike. The build runs it; a test checks the committed file is current.
import { writeFileSync } from 'node:fs';
import { buildAssets, generatedModule } from './dashboard-assets.mjs';

writeFileSync(new URL('../src/assets.generated.ts', import.meta.url), generatedModule(await buildAssets()));
