// The JupyterLab plugin: registers the Futhark language with JupyterLab's editor language
// registry, so notebooks whose kernel says `language_info.name = "futhark"` (mimetype
// `text/x-futhark`, codemirror_mode `futhark`) and `.fut` files are highlighted with it.

import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import { LanguageSupport, StreamLanguage } from '@codemirror/language';

import { futhark } from './futhark';

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyterlab-futhark:language',
  description: 'Futhark syntax highlighting (a CodeMirror 6 language mode).',
  autoStart: true,
  requires: [IEditorLanguageRegistry],
  activate: (_app: JupyterFrontEnd, languages: IEditorLanguageRegistry): void => {
    languages.addLanguage({
      name: 'futhark',
      displayName: 'Futhark',
      alias: ['Futhark', 'fut'],
      mime: 'text/x-futhark',
      extensions: ['fut'],
      support: new LanguageSupport(StreamLanguage.define(futhark))
    });
  }
};

export default plugin;
