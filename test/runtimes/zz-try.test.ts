import { it } from 'vitest';
import { buildRuntimeBundle } from './bundle';
import { writeFileSync } from 'node:fs';
it('b', async () => { const b = await buildRuntimeBundle('browser'); writeFileSync('/tmp/matrix-browser.mjs', b.code); }, 60000);
