import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** The provider's own signing key (its built-in development keys are not meant to be used). */
const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });

export const OIDC_CLIENT = { id: 'chat-commons', secret: 'chat-commons-test-secret' } as const;

/** What the test provider says about an account; by default derived from the login typed at its page. */
export interface TestAccount {
  email?: string;
  email_verified?: boolean;
  preferred_username?: string;
  name?: string;
}

export interface TestOidcProvider {
  issuer: string;
  /** Claims per login name; a login without an entry gets `<login>@example.test` and its name as username. */
  accounts: Map<string, TestAccount>;
  /** Adds a redirect URI of the client (an app listening on a new port). */
  allowRedirect(uri: string): void;
  close(): Promise<void>;
}

/**
 * A real OpenID Connect provider (oidc-provider) on 127.0.0.1 and a random port, with its development login and
 * consent pages (any login name is accepted), one confidential client and PKCE required.
 */
export async function startOidcProvider(): Promise<TestOidcProvider> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accounts = new Map<string, TestAccount>();
  const redirectUris: string[] = [];
  const result: TestOidcProvider = {
    issuer,
    accounts,
    allowRedirect(uri) {
      redirectUris.push(uri);
      // The provider reads its clients once: the next request makes it again with the new list.
      handler = null;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  let handler: ReturnType<Provider['callback']> | null = null;
  const make = () =>
    new Provider(issuer, {
      clients: [
        {
          client_id: OIDC_CLIENT.id,
          client_secret: OIDC_CLIENT.secret,
          redirect_uris: [...redirectUris],
          response_types: ['code'],
          grant_types: ['authorization_code'],
          token_endpoint_auth_method: 'client_secret_post',
        },
      ],
      claims: {
        openid: ['sub'],
        email: ['email', 'email_verified'],
        profile: ['preferred_username', 'name'],
      },
      cookies: { keys: ['test-cookie-key'] },
      jwks: { keys: [{ ...signingKey, kid: 'test', use: 'sig', alg: 'RS256' }] },
      features: { devInteractions: { enabled: true } },
      findAccount: (_ctx, id) => ({
        accountId: id,
        claims: () => ({
          sub: id,
          email: `${id}@example.test`,
          email_verified: true,
          preferred_username: id,
          name: id,
          ...accounts.get(id),
        }),
      }),
    });
  server.on('request', (req, res) => {
    handler ??= make().callback();
    void handler(req, res);
  });
  return result;
}

/** Cookies per origin, as a browser would keep them (enough for these flows: no paths, no expiry dates). */
export class CookieJar {
  private readonly byOrigin = new Map<string, Map<string, string>>();

  header(url: string): string {
    const jar = this.byOrigin.get(new URL(url).origin);
    return jar ? [...jar].map(([k, v]) => `${k}=${v}`).join('; ') : '';
  }

  store(url: string, res: Response): void {
    const origin = new URL(url).origin;
    const jar = this.byOrigin.get(origin) ?? new Map<string, string>();
    this.byOrigin.set(origin, jar);
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === '' || /max-age=0/i.test(line) || /expires=thu, 01 jan 1970/i.test(line)) jar.delete(name);
      else jar.set(name, value);
    }
  }

  get(url: string, name: string): string | undefined {
    return this.byOrigin.get(new URL(url).origin)?.get(name);
  }
}

/** A request with the jar's cookies, redirects not followed. */
export async function send(
  jar: CookieJar,
  url: string,
  init: { method?: string; form?: Record<string, string> } = {},
): Promise<Response> {
  const headers: Record<string, string> = { cookie: jar.header(url) };
  if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers,
    body: init.form ? new URLSearchParams(init.form).toString() : undefined,
    redirect: 'manual',
  });
  jar.store(url, res);
  return res;
}

/**
 * Follows a sign-in like a browser from `startUrl` (the app's start path), logging in as `login` at the
 * provider's own pages and consenting, until the app's answer to the callback. Returns that last response and
 * the URL it was for.
 */
export async function signInThroughProvider(
  jar: CookieJar,
  startUrl: string,
  login: string,
): Promise<{ res: Response; url: string }> {
  const appOrigin = new URL(startUrl).origin;
  let url = startUrl;
  let res = await send(jar, url);
  for (let step = 0; step < 20; step += 1) {
    const location = res.headers.get('location');
    if (location) {
      const next = new URL(location, url).href;
      if (new URL(url).origin === appOrigin && new URL(next).origin === appOrigin) return { res, url };
      url = next;
      res = await send(jar, url);
      continue;
    }
    if (new URL(url).origin === appOrigin) return { res, url };
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`no form at ${url} (${res.status}): ${html.slice(0, 300)}`);
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1] ?? 'login';
    url = new URL(action, url).href;
    res = await send(jar, url, {
      method: 'POST',
      form: prompt === 'login' ? { prompt, login, password: 'any' } : { prompt },
    });
  }
  throw new Error('sign-in did not finish');
}
