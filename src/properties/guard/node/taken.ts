// What the guard calls once project code runs, taken as the preload loads,
// before any project code: production code may replace a module's exports
// or a built-in's method, and a string method with a separator or a regular
// expression meets hooks it can add (String.prototype[Symbol.split],
// RegExp.prototype.exec).
import util from 'node:util';

export const apply = Reflect.apply;
export const define = Object.defineProperty;
export const { getPrototypeOf, setPrototypeOf, keys, getOwnPropertyDescriptor } = Object;
export const isArray = Array.isArray;
export const { ownKeys, set: reflectSet, defineProperty: reflectDefine, deleteProperty: reflectDelete } = Reflect;
export const freeze = Object.freeze;
export const { isProxy, isDate, isUint8Array } = util.types;
const exec = RegExp.prototype.exec;

export const matches = (re: RegExp, text: string): boolean => apply(exec, re, [text]) !== null;
/** An array with no prototype: set by index, it meets no setter. */
export const list = <T>(): T[] => setPrototypeOf([], null);
export const objectish = (o: unknown): o is object => o !== null && (typeof o === 'object' || typeof o === 'function');
export const isIndex = (k: PropertyKey): boolean => typeof k === 'string' && matches(/^(0|[1-9]\d*)$/, k);
export const nameOfKey = (k: PropertyKey): string => (typeof k === 'symbol' ? `[${k.description}]` : String(k));
/** A data property made read-only where it is. */
export function readOnly(o: object, key: PropertyKey): void {
  const d = getOwnPropertyDescriptor(o, key);
  if (d && 'value' in d)
    define(o, key, { value: d.value, writable: false, configurable: false, enumerable: d.enumerable });
}
