// The web application's entry: mounts the app into the page /app serves.
import { render } from 'preact';
import { App } from './app';
import { prefetch } from './prefetch';
import './styles.css';

prefetch();
render(<App />, document.getElementById('app')!);
