import { defineConfig } from 'vite';

// The playground. Preact's automatic JSX runtime comes from tsconfig.base.json (jsxImportSource).
export default defineConfig({
  server: { port: 5173, strictPort: false },
  preview: { port: 4173, strictPort: true },
  build: { target: 'es2022', sourcemap: true },
});
