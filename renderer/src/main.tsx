import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBridge } from './bridge';
import { setBridge } from './bridge/instance';
import { syncStore } from './store/sync';
import './styles.css';
import { App } from './views/app';

const bridge = await createBridge();
setBridge(bridge);
syncStore(bridge);

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
