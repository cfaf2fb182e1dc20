// The web application's entry: mounts the app into the page /app serves.
import { render } from 'preact';
import { App } from './app';
import './styles.css';

render(<App />, document.getElementById('app')!);
