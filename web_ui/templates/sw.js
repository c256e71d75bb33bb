/* The dashboard's service worker (web_ui/homescreen.py): the static files from this device's copy first,
   everything else (pages, /api/, the live streams) from the network, never stored. */
"use strict";
const CACHE = {{ cache|tojson }};
const FILES = {{ files|tojson }};
const KEEP = new Set(FILES);

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  // the copies of older versions go. The pages open now keep what they loaded (no clients.claim()): the
  // next page opened, or a reload, is served by this worker
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((n) => n.startsWith("rr-static-") && n !== CACHE).map((n) => caches.delete(n)))));
});

self.addEventListener("fetch", (event) => {
  const req = event.request;
  if (req.method !== "GET") return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin || !KEEP.has(url.pathname)) return;  // not a static file: the network
  event.respondWith(caches.open(CACHE).then((c) => c.match(url.pathname).then((hit) => hit || fetch(req))));
});
