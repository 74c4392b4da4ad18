import { useEffect, useState } from 'react';
import type { AuthOptions } from '@cc/contracts';
import { apiPaths } from '../../../config/paths';
import { apiClient } from '../../../lib/api-client';

export function getAuthOptions(): Promise<AuthOptions> {
  return apiClient.get<AuthOptions>(apiPaths.authOptions, { silent: true, noAuthDialog: true });
}

/**
 * What the login page offers besides the password (public); null until known and when it fails (quietly: the
 * password form stays). Plain state rather than a query: the login page is a page of its own without the query cache.
 */
export function useAuthOptions(): AuthOptions | null {
  const [options, setOptions] = useState<AuthOptions | null>(null);
  useEffect(() => {
    let live = true;
    getAuthOptions().then(
      (result) => live && setOptions(result),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, []);
  return options;
}
