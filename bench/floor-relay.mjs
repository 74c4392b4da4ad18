// The least a websocket relay in Node can do, for `bench/relay.mjs --floor`: no sessions, database, quotas, records
// or logs. A socket's first message is an ask (`text_content`); the relay sends it upstream (OpenAI-style, streamed,
// through a keep-alive pool as the product's), and each content delta of the answer goes to the socket as a binary
// message of the text alone (the product's delta mode), uncompressed (less work for both ends than the product's
// permessage-deflate). The socket closes (1000) at the answer's end. Whatever the relayed first token costs here
// beyond the direct read is the part of the gap that no relay on this stack and machine avoids.
//
// Run: `node bench/floor-relay.mjs --port P --upstream http://127.0.0.1:U` (it prints `ready` when listening).
// `GET /loop` answers its event-loop delay p99 (ms) since the last such request, as the product's /metrics does.
import { createServer } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { WebSocketServer } from 'ws';
import { sseContents } from './sse-content.mjs';

const { values: args } = parseArgs({
  options: { port: { type: 'string' }, upstream: { type: 'string' } },
});
const agent = new Agent({ connections: 10_000, pipelining: 0 });
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
const http = createServer((req, res) => {
  if (req.url !== '/loop') return res.writeHead(404).end();
  const p99 = loop.percentile(99) / 1e6;
  loop.reset();
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ p99 }));
});
const server = new WebSocketServer({ server: http, perMessageDeflate: false, maxPayload: 1024 * 1024 });

server.on('connection', (socket) => {
  socket.once('message', (data) => {
    relay(socket, JSON.parse(data.toString('utf8'))).catch((error) =>
      socket.close(1011, String(error).slice(0, 100)),
    );
  });
});
http.listen({ host: '127.0.0.1', port: Number(args.port), backlog: 4096 }, () => console.log('ready'));

async function relay(socket, ask) {
  const res = await request(`${args.upstream}/v1/chat/completions`, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'gpt-3.5-turbo',
      stream: true,
      messages: [{ role: 'user', content: ask.text_content }],
    }),
  });
  if (res.statusCode !== 200) throw new Error(`upstream ${res.statusCode}`);
  for await (const text of sseContents(res.body)) socket.send(Buffer.from(text, 'utf8'), { binary: true });
  socket.close(1000);
}
