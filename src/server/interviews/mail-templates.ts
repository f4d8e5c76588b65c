/**
 * The interview mails (booked, cancelled, moved, new meeting link) for the patient and the
 * interviewer, in the recipient's locale, with the time in their own zone (zone named). They
 * say when, with whom and where to join: nothing about the case, the screening or the reason
 * for the interview.
 */
import type { Locale } from '../config';

export type InterviewMailKind = 'booked' | 'canceled' | 'rescheduled' | 'link_changed';
export const INTERVIEW_MAIL_KINDS: readonly InterviewMailKind[] = ['booked', 'canceled', 'rescheduled', 'link_changed'];

export interface InterviewMailParams {
  /** The recipient's name (alias or username). */
  name: string;
  /** The slot in the recipient's zone, e.g. "Tue, 23/03/2027, 10:00–11:00 (Europe/Berlin)". */
  when: string;
  /** The interviewer's name, for the patient. */
  interviewer: string;
  /** The video meeting link, if set. */
  link: string | null;
  /** Where the appointment can be seen and changed in Sanad. */
  appLink: string;
  role: 'patient' | 'interviewer';
}

interface Texts {
  subject: Record<InterviewMailKind, string>;
  lead: Record<InterviewMailKind, (p: InterviewMailParams) => string>;
  greeting: (name: string) => string;
  when: string;
  withWhom: string;
  join: string;
  noLinkYet: string;
  open: string;
  attachment: string;
  footer: string;
}

const TEXTS: Record<Locale, Texts> = {
  ar: {
    subject: {
      booked: 'سند: تم حجز موعد المقابلة',
      canceled: 'سند: تم إلغاء موعد المقابلة',
      rescheduled: 'سند: تغيّر موعد المقابلة',
      link_changed: 'سند: رابط جديد لمقابلتك',
    },
    lead: {
      booked: (p) => (p.role === 'patient' ? 'تم حجز موعد مقابلتك.' : 'تم حجز أحد مواعيد المقابلة التي عرضتها.'),
      canceled: () => 'تم إلغاء موعد المقابلة التالي.',
      rescheduled: () => 'تغيّر موعد المقابلة. الموعد الجديد:',
      link_changed: () => 'يوجد رابط جديد للاجتماع عبر الفيديو لمقابلتك.',
    },
    greeting: (name) => `مرحبًا ${name}،`,
    when: 'الموعد',
    withWhom: 'مع',
    join: 'رابط الاجتماع عبر الفيديو',
    noLinkYet: 'ستجد رابط الاجتماع في سند قبل بدء المقابلة.',
    open: 'يمكنك رؤية الموعد وتغييره هنا',
    attachment: 'الملف المرفق يضيف الموعد إلى تقويمك.',
    footer: 'هذه رسالة آلية من منصة سند.',
  },
  de: {
    subject: {
      booked: 'Sanad: Interviewtermin gebucht',
      canceled: 'Sanad: Interviewtermin abgesagt',
      rescheduled: 'Sanad: Interviewtermin verschoben',
      link_changed: 'Sanad: neuer Link für Ihr Interview',
    },
    lead: {
      booked: (p) => (p.role === 'patient' ? 'Ihr Interviewtermin ist gebucht.' : 'Einer Ihrer angebotenen Interviewtermine wurde gebucht.'),
      canceled: () => 'Der folgende Interviewtermin wurde abgesagt.',
      rescheduled: () => 'Der Interviewtermin wurde verschoben. Neuer Termin:',
      link_changed: () => 'Für Ihr Interview gibt es einen neuen Link zum Videotreffen.',
    },
    greeting: (name) => `Hallo ${name},`,
    when: 'Termin',
    withWhom: 'Mit',
    join: 'Link zum Videotreffen',
    noLinkYet: 'Den Link zum Videotreffen finden Sie vor Beginn in Sanad.',
    open: 'Den Termin sehen und ändern Sie hier',
    attachment: 'Mit der angehängten Datei tragen Sie den Termin in Ihren Kalender ein.',
    footer: 'Dies ist eine automatische Nachricht der Plattform Sanad.',
  },
  en: {
    subject: {
      booked: 'Sanad: interview booked',
      canceled: 'Sanad: interview cancelled',
      rescheduled: 'Sanad: interview moved',
      link_changed: 'Sanad: new link for your interview',
    },
    lead: {
      booked: (p) => (p.role === 'patient' ? 'Your interview is booked.' : 'One of the interview times you offered has been booked.'),
      canceled: () => 'The following interview has been cancelled.',
      rescheduled: () => 'The interview has been moved. The new time:',
      link_changed: () => 'There is a new video meeting link for your interview.',
    },
    greeting: (name) => `Hello ${name},`,
    when: 'When',
    withWhom: 'With',
    join: 'Video meeting link',
    noLinkYet: 'You will find the video meeting link in Sanad before the interview starts.',
    open: 'See or change the appointment here',
    attachment: 'The attached file adds the appointment to your calendar.',
    footer: 'This is an automatic message from the Sanad platform.',
  },
};

export function renderInterviewMail(kind: InterviewMailKind, locale: Locale, p: InterviewMailParams): { subject: string; text: string } {
  const t = TEXTS[locale];
  const lines = [t.greeting(p.name), '', t.lead[kind](p), '', `${t.when}: ${p.when}`];
  if (p.role === 'patient') lines.push(`${t.withWhom}: ${p.interviewer}`);
  if (kind !== 'canceled') {
    lines.push('', p.link ? `${t.join}: ${p.link}` : t.noLinkYet);
  }
  lines.push('', `${t.open}:`, p.appLink, '', t.attachment, '', t.footer);
  return { subject: t.subject[kind], text: lines.join('\n') };
}

/** The calendar entry's title: neutral, the same for both sides. */
export function interviewSummary(locale: Locale): string {
  return { ar: 'سند: مقابلة', de: 'Sanad: Interview', en: 'Sanad: interview' }[locale];
}
