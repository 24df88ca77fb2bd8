// An OpenAI-compatible chat completions server for the gateway comparison:
// every request is answered "ok" at once (streamed as server-sent chunks
// when asked), with usage, so both gateways spend their time on their own
// work, not the model's.
//
//   node fake-model.mjs [port]    prints "listening http://127.0.0.1:<port>/v1"
import http from 'node:http';

let n = 0;
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    if (req.method === 'GET' && req.url.endsWith('/models')) {
      res.writeHead(200, {'content-type': 'application/json'});
      res.end(JSON.stringify({object: 'list', data: [{id: 'm1', object: 'model', owned_by: 'bench'}]}));
      return;
    }
    if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) {
      res.writeHead(404).end();
      return;
    }
    let parsed = {};
    try { parsed = JSON.parse(body); } catch {}
    const id = `chatcmpl-${++n}`;
    const usage = {prompt_tokens: 10, completion_tokens: 1, total_tokens: 11};
    if (!parsed.stream) {
      res.writeHead(200, {'content-type': 'application/json'});
      res.end(JSON.stringify({id, object: 'chat.completion', created: 1, model: parsed.model,
        choices: [{index: 0, message: {role: 'assistant', content: 'ok'}, finish_reason: 'stop'}], usage}));
      return;
    }
    res.writeHead(200, {'content-type': 'text/event-stream', 'cache-control': 'no-cache'});
    const chunk = (v) => res.write(`data: ${JSON.stringify({id, object: 'chat.completion.chunk', created: 1, model: parsed.model, ...v})}\n\n`);
    chunk({choices: [{index: 0, delta: {role: 'assistant', content: ''}, finish_reason: null}]});
    chunk({choices: [{index: 0, delta: {content: 'ok'}, finish_reason: null}]});
    chunk({choices: [{index: 0, delta: {}, finish_reason: 'stop'}]});
    chunk({choices: [], usage});
    res.end('data: [DONE]\n\n');
  });
});
server.listen(Number(process.argv[2] || 0), '127.0.0.1', () => {
  console.log(`listening http://127.0.0.1:${server.address().port}/v1`);
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.close(() => process.exit(0)));
