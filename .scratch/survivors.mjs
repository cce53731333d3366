import { readFileSync } from 'node:fs';
const r = JSON.parse(readFileSync(process.argv[2], 'utf8'));
for (const [file, f] of Object.entries(r.files)) {
  const lines = f.source.split('\n');
  for (const m of f.mutants) if (m.status === 'Survived' || m.status === 'NoCoverage') console.log(`${file}:${m.location.start.line}:${m.location.start.column} ${m.status} ${m.mutatorName} :: ${lines[m.location.start.line - 1].trim().slice(0, 110)} => ${String(m.replacement).slice(0, 80)}`);
}
