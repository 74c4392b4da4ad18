import { useState } from 'react';
import { createBrowserRouter } from 'react-router';
import { RouterProvider } from 'react-router/dom';
import { queryClient } from '../lib/query-client';
import { AppProviders } from './providers';
import { createRoutes } from './routes';

export function App() {
  const [router] = useState(() => createBrowserRouter(createRoutes(queryClient)));
  return (
    <AppProviders client={queryClient}>
      <RouterProvider router={router} />
    </AppProviders>
  );
}
