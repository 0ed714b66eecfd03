import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { setBridge } from './bridge/instance';
import { bridgeStarted } from './start';
import { syncStore } from './store/sync';
import './styles.css';
import { App } from './views/app';
import { prepareFormats } from './views/format';

const bridge = await bridgeStarted;
setBridge(bridge);
syncStore(bridge);

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
// After the first render is queued, before the data arrive.
prepareFormats();
