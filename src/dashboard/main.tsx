import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './index.css';

function Placeholder() {
  return (
    <main className="mx-auto max-w-xl p-8 font-sans text-slate-800">
      <h1 className="text-2xl font-semibold">Pipeline dashboard</h1>
      <p className="mt-2">The service is running. The dashboard is on its way.</p>
    </main>
  );
}

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <Placeholder />
    </StrictMode>,
  );
}
