import path from 'node:path';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import websocket from '@fastify/websocket';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { AppContext } from './app-context';
import { registerAuth } from './http/auth';
import { refuseUndecodableRequest, registerErrorHandlers } from './http/error-handler';
import { RequestLogController } from './http/request-logging';
import { registerRequestStats } from './http/request-stats';
import { authRoutes } from './routes/auth.routes';
import { healthRoutes } from './routes/health.routes';
import { chatSocketRoute } from './chat/socket';
import { compressInline } from './chat/inline-deflate';
import { conversationRoutes } from './routes/conversation.routes';
import { shareRoutes } from './routes/share.routes';
import { signInRoutes } from './routes/sign-in.routes';
import { fileRoutes } from './routes/file.routes';
import { machineRoutes } from './routes/machine.routes';
import { metricsRoutes } from './routes/metrics.routes';
import { pluginRoutes } from './routes/plugin.routes';
import { statusRoutes } from './routes/status.routes';
import { systemRoutes } from './routes/system.routes';
import { userRoutes } from './routes/user.routes';
import { groupRoutes } from './routes/group.routes';

/**
 * Compression of websocket frames (permessage-deflate, when the client offers it; browsers do). Answer frames are
 * small and alike, so even tiny ones are compressed (threshold 0), with the context kept between frames, in-line
 * (`compressInline`). A compressor takes ~119 kB of memory per socket: Node's zlib gives every one a 64 kB hash
 * table whatever the memory level (it raises the hash to 15 bits where the CPU has CRC32 instructions), and the
 * 8 kB window is kept (its context) for the answer's text — a 1 kB window would save ~32 kB per socket but cost
 * up to 2.7 times the bytes on a long answer.
 */
const CHAT_DEFLATE = {
  threshold: 0,
  serverMaxWindowBits: 13,
  clientMaxWindowBits: 10,
  // A client's messages are few and small (a question, a stop): each stands alone, so no inflate state is kept
  // per socket between them (see compressInline).
  clientNoContextTakeover: true,
  zlibDeflateOptions: { level: 1, memLevel: 4 },
  zlibInflateOptions: { chunkSize: 4 * 1024 },
  concurrencyLimit: 256,
} as const;

export interface RegisteredRoute {
  method: string;
  url: string;
  access: string | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route with its declared access (the authorization matrix test checks it covers them all). */
    registeredRoutes: RegisteredRoute[];
  }
}

export interface BuildAppOptions {
  /** Folder of the built web app; served at / with an SPA fallback when it exists. */
  webDist?: string | null;
}

/** apps/web/dist, from apps/server/src/app.ts as from the bundled apps/server/dist/main.js (same depth). */
export const DEFAULT_WEB_DIST = fileURLToPath(new URL('../../web/dist', import.meta.url));

/** Builds the Fastify app around a context. Tests import this, never main.ts. */
export async function buildApp(ctx: AppContext, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const trustProxy = ctx.config.http.trust_proxy;
  const app = Fastify({
    loggerInstance: ctx.log,
    // false or the proxies' addresses and networks; never true (see the config's comment).
    trustProxy: trustProxy === false ? false : [...trustProxy],
    bodyLimit: 2 * 1024 * 1024,
    genReqId: () => crypto.randomUUID(),
    logController: new RequestLogController(),
    frameworkErrors: refuseUndecodableRequest,
  });
  const routes: RegisteredRoute[] = [];
  app.decorate('registeredRoutes', routes);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) routes.push({ method, url: route.url, access: route.config?.access });
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const directives = {
    defaultSrc: ["'self'"],
    // Images: the product's own routes, data: and blob: (previews). `https:` stays because images from other hosts
    // in model output load when the reader clicks their placeholder (the web renders no <img> for them before),
    // and user avatars and plugin logos are https URLs on any host; naming hosts here cannot cover those. Plain
    // `http:` is not allowed: nothing the product shows needs it, and it would travel in clear text.
    imgSrc: ["'self'", 'data:', 'blob:', 'https:'],
    styleSrc: ["'self'", "'unsafe-inline'"],
    scriptSrc: ["'self'"],
    // 'self' covers the page's own websocket (ws: on http, wss: on https): a script that got in cannot open a socket
    // to any other host. Browser uploads go straight to the upstream's blob host (and, in demo mode, the emulator's).
    connectSrc: [
      "'self'",
      ...ctx.runtime.current().openai_web.browser_upload_origins,
      ...(ctx.demo ? [ctx.demo.emulator.url] : []),
    ],
    fontSrc: ["'self'", 'data:'],
    objectSrc: ["'none'"],
    frameAncestors: ["'none'"],
  };
  // HSTS and upgrade-insecure-requests only on HTTPS requests (directly or through a trusted proxy): over plain
  // HTTP, e.g. http://chat.lan:8000, they make the browser fetch the scripts over HTTPS and the page stays blank.
  await app.register(helmet, {
    hsts: false,
    contentSecurityPolicy: { directives: { ...directives, upgradeInsecureRequests: null } },
  });
  app.addHook('onRequest', async (request, reply) => {
    if (request.protocol === 'https') {
      // Applies the headers again with the HTTPS-only ones on (the defaults: one year, subdomains included).
      reply.helmet({
        hsts: { maxAge: 31_536_000, includeSubDomains: true },
        contentSecurityPolicy: { directives },
      });
    }
  });
  await app.register(cookie);
  await app.register(formbody);
  await app.register(multipart, { limits: { fileSize: ctx.config.data.max_file_upload_size } });
  // Per-route limits; with Redis configured every instance counts in the same store.
  // A store that fails (Redis out) lets the request through rather than answering 500.
  await app.register(rateLimit, { global: false, skipOnError: true, ...ctx.coordination.rateLimitStore });
  await app.register(websocket, { options: { maxPayload: 1024 * 1024, perMessageDeflate: CHAT_DEFLATE } });
  app.websocketServer.on('connection', (socket: WebSocket) =>
    compressInline(socket, CHAT_DEFLATE.zlibDeflateOptions),
  );
  await app.register(swagger, {
    openapi: {
      info: { title: 'Chat Commons API', version: '1.0.1' },
      components: {
        securitySchemes: {
          session: { type: 'apiKey', in: 'cookie', name: 'cc_session' },
          metricsToken: { type: 'http', scheme: 'bearer' },
        },
      },
    },
    transform: jsonSchemaTransform,
  });
  // The API documentation is public.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/api/docs')) route.config = { ...(route.config ?? {}), access: 'public' };
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs', uiConfig: { docExpansion: 'list' } });

  const webDist = options.webDist === undefined ? DEFAULT_WEB_DIST : options.webDist;
  const serveWeb = !!webDist && existsSync(webDist);
  registerErrorHandlers(app, { spaFallback: serveWeb });
  registerAuth(app, ctx);
  registerRequestStats(app, ctx);

  healthRoutes(app, ctx);
  authRoutes(app, ctx);
  signInRoutes(app, ctx);
  userRoutes(app, ctx);
  groupRoutes(app, ctx);
  conversationRoutes(app, ctx);
  shareRoutes(app, ctx);
  fileRoutes(app, ctx);
  machineRoutes(app, ctx);
  pluginRoutes(app, ctx);
  statusRoutes(app, ctx);
  systemRoutes(app, ctx);
  chatSocketRoute(app, ctx);
  metricsRoutes(app, ctx);

  if (serveWeb) {
    await app.register(fastifyStatic, {
      root: webDist,
      prefix: '/',
      wildcard: false,
      index: ['index.html'],
      // The build writes brotli and gzip copies of its text files (apps/web/vite.config.ts): sent to browsers that
      // accept them, with no compression work per request.
      preCompressed: true,
      // Built files have the hash of their content in their name: cached for good. Everything else (index.html,
      // the client-side routes that serve it) is checked on every visit, so a new version shows at once.
      cacheControl: false,
      setHeaders: (reply, file) => {
        reply.header(
          'cache-control',
          file.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
    // /login opened directly gets the login page's own small document (the app's /login route is for the redirects
    // inside the app); an older build without it gets the app.
    if (existsSync(path.join(webDist, 'login.html'))) {
      app.get('/login', { config: { access: 'public' } }, (_request, reply) =>
        reply.header('cache-control', 'no-cache').type('text/html').sendFile('login.html'),
      );
    }
  }
  return app;
}
