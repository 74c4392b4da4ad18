// The least a websocket relay in Node can do, for `bench/relay.mjs --floor`: no sessions, database, quotas, records
// or logs. A socket's first message is an ask (`text_content`); the relay sends it upstream (OpenAI-style, streamed,
// through a keep-alive pool as the product's), and each content delta of the answer goes to the socket as a binary
// message of the text alone (the product's delta mode), uncompressed (less work for both ends than the product's
// permessage-deflate). The socket closes (1000) at the answer's end. Whatever the relayed first token costs here
// beyond the direct read is the part of the gap that no relay on this stack and machine avoids.
//
// Run: `node bench/floor-relay.mjs --port P --upstream http://127.0.0.1:U` (it prints `ready` when listening).
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { WebSocketServer } from 'ws';

const { values: args } = parseArgs({
  options: { port: { type: 'string' }, upstream: { type: 'string' } },
});
const agent = new Agent({ connections: 10_000, pipelining: 0 });
const server = new WebSocketServer({
  host: '127.0.0.1',
  port: Number(args.port),
  backlog: 4096,
  perMessageDeflate: false,
  maxPayload: 1024 * 1024,
});

server.on('connection', (socket) => {
  socket.once('message', (data) => {
    relay(socket, JSON.parse(data.toString('utf8'))).catch((error) =>
      socket.close(1011, String(error).slice(0, 100)),
    );
  });
});
server.on('listening', () => console.log('ready'));

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
  let buffer = '';
  for await (const chunk of res.body) {
    buffer += chunk.toString('utf8');
    let cut;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = event.startsWith('data: ') ? event.slice(6) : '';
      if (!data || data === '[DONE]') continue;
      const text = JSON.parse(data).choices?.[0]?.delta?.content;
      if (text) socket.send(Buffer.from(text, 'utf8'), { binary: true });
    }
  }
  socket.close(1000);
}
