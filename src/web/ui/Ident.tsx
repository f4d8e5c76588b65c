import { Fragment } from 'react';
import { latinParts } from '../../domain/bidi';
/**
 * The one bidi rule for identifiers (case codes, offer codes, instrument codes such as "LEC-5"):
 * an identifier is a left-to-right island in any sentence, and one unit when the line wraps.
 * In Arabic a case code starting with digits ("96d8ae5") otherwise splits at the digit-letter
 * boundary and its halves swap; a code with a hyphen otherwise breaks inside at 360 px.
 */
export function Ident({ children, className }: { children: string; className?: string }) {
  return (
    <bdi dir="ltr" className={className ? `ident ${className}` : 'ident'}>
      {children}
    </bdi>
  );
}

/**
 * A catalog or questionnaire text with Latin codes in it ("قائمة أحداث الحياة وفق DSM-5 (LEC-5)"):
 * each code is an `Ident`, so it reads left to right and wraps as a whole, the parentheses
 * around it staying with the Arabic sentence.
 */
export function TextWithIdents({ text }: { text: string }) {
  return (
    <>
      {latinParts(text).map((part, index) => (part.latin ? <Ident key={index}>{part.text}</Ident> : <Fragment key={index}>{part.text}</Fragment>))}
    </>
  );
}
