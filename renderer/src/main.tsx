import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBridge } from './bridge';
import { syncStore } from './store/sync';
import './styles.css';
import { App } from './views/app';

syncStore(createBridge());

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
