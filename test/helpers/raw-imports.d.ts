// `import text from './file.json?raw'`: the file's text, unparsed. Vite (so Vitest)
// implements the suffix; test/runtimes/bundle.ts does the same for the runtime matrix.
declare module '*?raw' {
  const text: string;
  export default text;
}
