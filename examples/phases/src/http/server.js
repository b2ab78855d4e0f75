import { createServer } from "node:http";
import { login } from "../auth/login.js";

// A minimal HTTP server: POST /login with a JSON body { username, password }.
export function startServer(store, port = 3000) {
  const server = createServer(async (req, res) => {
    if (req.method !== "POST" || req.url !== "/login") {
      res.writeHead(404).end();
      return;
    }
    let body = "";
    for await (const chunk of req) body += chunk;
    const { username, password } = JSON.parse(body || "{}");
    const result = await login(store, username, password);
    res.writeHead(result.ok ? 200 : 401, { "content-type": "application/json" }).end(JSON.stringify(result));
  });
  return server.listen(port);
}
