// The dashboard's page: reads the session, then renders the workspace.

import 'uplot/dist/uPlot.min.css';
import './style.css';
import { render } from 'preact';
import { get, setCsrfToken } from './api.ts';
import { App } from './app.tsx';
import { sayError } from './state.ts';
import type { Session } from './types.ts';

async function start(): Promise<void> {
  const root = document.getElementById('app') as HTMLElement;
  let session: Session;
  try {
    session = await get<Session>('api/session');
  } catch (error) {
    render(<App session={null} />, root);
    sayError(error);
    return;
  }
  setCsrfToken(session.csrfToken);
  render(<App session={session} />, root);
}

void start();
