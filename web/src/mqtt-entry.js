// What the dashboard uses of mqtt.js, exposed as the global `mqtt` (mqtt.connect(url, options)).
// mqtt's browser build (dist/mqtt.esm.js, picked by its "exports" browser condition) has
// only a default export.
import lib from "mqtt";

export const connect = lib.connect;
