import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { setBridge } from './bridge/instance';
import { bridgeStarted, viewLoaded } from './start';
import { syncStore } from './store/sync';
import './styles/base.css';
import './styles/shell.css';
import './styles/common.css';
import './styles/header-controls.css';
import { App } from './views/app';
import { prepareFormats } from './views/format';

const bridge = await bridgeStarted;
setBridge(bridge);
syncStore(bridge);

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
// Rendered once the view the address names is loaded (while the socket connects), so it
// never suspends (see preloadView). Not awaited here: that view's module imports this
// script's, which would then never finish evaluating.
void viewLoaded.then(() =>
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  ),
);
// Before the data arrive.
prepareFormats();
