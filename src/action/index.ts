/** The bundled entry of the GitHub Action (action/dist/index.js). */
import { main } from "./main.js";

await main();
