import { createServer } from "node:http";
import { listNotes } from "./notes/list.js";

// A minimal HTTP server for the notes API.
export function startServer(store, port = 3000) {
  const server = createServer(async (req, res) => {
    if (req.method === "GET" && req.url.split("?")[0] === "/notes") {
      const notes = await listNotes(store);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(notes));
      return;
    }
    res.writeHead(404).end();
  });
  return server.listen(port);
}
