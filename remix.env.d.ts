/// <reference types="@remix-run/node" />
/// <reference types="vite/client" />
