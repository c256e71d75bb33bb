/* The service worker (/sw.js, web_ui/homescreen.py): a copy of the static files on this device, so a tablet
   that keeps the dashboard on its home screen starts fast and keeps its look when the network drops.
   Browsers allow it only in a secure context (localhost or HTTPS). */
"use strict";
if ("serviceWorker" in navigator && window.isSecureContext) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => { /* the page works without it */ });
}
