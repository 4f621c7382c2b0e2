import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { createQueryClient } from './core/query-client.ts';
import { router } from './app/router.tsx';
import { useThemeClass } from './core/theme.ts';
import { i18nReady } from './i18n/index.ts';
import './index.css';

const queryClient = createQueryClient();

function App() {
  useThemeClass();
  return (
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  );
}

const root = document.getElementById('root');
// The first paint waits for the chosen language's catalogues (a chunk of its own unless it
// is English); should they fail to load, the dashboard shows in English.
void i18nReady.finally(() => {
  if (root)
    createRoot(root).render(
      <StrictMode>
        <App />
      </StrictMode>,
    );
});
