/**
 * Account mails in the recipient's locale. Texts carry no clinical content: only what the
 * person must do and a link. Every template exists in ar, de and en (a test checks it).
 */
import type { Locale } from '../config';

export type MailKind =
  | 'account_exists'
  | 'confirm_registration'
  | 'new_message' | 'reset_password' | 'change_email' | 'email_change_notice' | 'password_changed'
  // issue 16: someone asked to move their account to an address that already has one
  | 'email_change_taken'
  // workflow mails (src/server/workflow/handlers.ts): content-free, a link to the due tasks
  | 'workflow_task_waiting' | 'workflow_task_reminder'
  // clinical safety (src/server/safety/handlers.ts): content-free too, no case, no answer
  | 'safety_task_waiting' | 'safety_task_overdue' | 'safety_call_review'
  // issue 26: nobody has taken a risk task on in time (the coordinators, then the on-call address)
  | 'safety_task_unacknowledged' | 'safety_on_call'
  // issue 14: a patient sent a worksheet; a therapist answered one (content-free)
  | 'new_worksheet' | 'worksheet_feedback'
  // issue 27: a coordinator invited a staff member, who chooses a password through the link
  | 'staff_invitation';

export interface MailContent {
  subject: string;
  text: string;
}

interface Params {
  link?: string;
  newEmail?: string;
  /** The name the mail greets: the person's chosen name, else the username (see GREETING_NAME). */
  username: string;
}

type Template = (p: Params) => MailContent;

const footer = {
  ar: 'هذه رسالة آلية من منصة سند. إذا لم تطلب ذلك، يمكنك تجاهل هذه الرسالة.',
  de: 'Dies ist eine automatische Nachricht der Plattform Sanad. Wenn Sie das nicht veranlasst haben, können Sie diese Nachricht ignorieren.',
  en: 'This is an automatic message from the Sanad platform. If you did not ask for it, you can ignore this message.',
} satisfies Record<Locale, string>;

const templates: Record<MailKind, Record<Locale, Template>> = {
  account_exists: {
    ar: (p) => ({
      subject: 'سند: لديك حساب بالفعل',
      text: `مرحبًا ${p.username}،\n\nحاول شخص ما التسجيل في سند بعنوان بريدك الإلكتروني، لكن لديك حساب بالفعل. يمكنك تسجيل الدخول باسم المستخدم الخاص بك. إذا نسيت كلمة المرور، يمكنك إعادة تعيينها هنا:\n${p.link}\n\n${footer.ar}`,
    }),
    de: (p) => ({
      subject: 'Sanad: Sie haben bereits ein Konto',
      text: `Hallo ${p.username},\n\njemand wollte sich mit Ihrer E-Mail-Adresse bei Sanad registrieren, aber Sie haben bereits ein Konto. Sie können sich mit Ihrem Benutzernamen anmelden. Wenn Sie Ihr Passwort vergessen haben, können Sie es hier zurücksetzen:\n${p.link}\n\n${footer.de}`,
    }),
    en: (p) => ({
      subject: 'Sanad: you already have an account',
      text: `Hello ${p.username},\n\nsomeone tried to register with Sanad using your email address, but you already have an account. You can sign in with your username. If you forgot your password, you can reset it here:\n${p.link}\n\n${footer.en}`,
    }),
  },
  confirm_registration: {
    ar: (p) => ({
      subject: 'سند: يرجى تأكيد بريدك الإلكتروني',
      text: `مرحبًا ${p.username}،\n\nشكرًا لتسجيلك في سند. لتفعيل حسابك، افتح الرابط التالي:\n${p.link}\n\n${footer.ar}`,
    }),
    de: (p) => ({
      subject: 'Sanad: Bitte bestätigen Sie Ihre E-Mail-Adresse',
      text: `Hallo ${p.username},\n\ndanke für Ihre Registrierung bei Sanad. Um Ihr Konto zu aktivieren, öffnen Sie bitte diesen Link:\n${p.link}\n\n${footer.de}`,
    }),
    en: (p) => ({
      subject: 'Sanad: please confirm your email address',
      text: `Hello ${p.username},\n\nthank you for registering with Sanad. To activate your account, open this link:\n${p.link}\n\n${footer.en}`,
    }),
  },
  workflow_task_waiting: {
    ar: (p) => ({
      subject: 'سند: لديك مهمة جديدة',
      text: `مرحبًا ${p.username}،\n\nهناك مهمة جديدة بانتظارك في سند. لرؤيتها، سجّل الدخول هنا:\n${p.link}\n\n${footer.ar}`,
    }),
    de: (p) => ({
      subject: 'Sanad: Eine neue Aufgabe wartet auf Sie',
      text: `Hallo ${p.username},\n\nin Sanad wartet eine neue Aufgabe auf Sie. Um sie zu sehen, melden Sie sich hier an:\n${p.link}\n\n${footer.de}`,
    }),
    en: (p) => ({
      subject: 'Sanad: a new task is waiting for you',
      text: `Hello ${p.username},\n\na new task is waiting for you on Sanad. To see it, sign in here:\n${p.link}\n\n${footer.en}`,
    }),
  },
  safety_task_waiting: {
    ar: (p) => ({
      subject: 'سند: مهمة سلامة عاجلة',
      text: `مرحبًا ${p.username}،\n\nهناك مهمة سلامة عاجلة بانتظارك في سند. يرجى الاطلاع عليها في أقرب وقت. سجّل الدخول هنا:\n${p.link}\n\n${footer.ar}`,
    }),
    de: (p) => ({
      subject: 'Sanad: dringende Sicherheitsaufgabe',
      text: `Hallo ${p.username},\n\nin Sanad wartet eine dringende Sicherheitsaufgabe auf Sie. Bitte sehen Sie sie so bald wie möglich an. Melden Sie sich hier an:\n${p.link}\n\n${footer.de}`,
    }),
    en: (p) => ({
      subject: 'Sanad: urgent safety task',
      text: `Hello ${p.username},\n\nan urgent safety task is waiting for you on Sanad. Please look at it as soon as you can. Sign in here:\n${p.link}\n\n${footer.en}`,
    }),
  },
  safety_task_overdue: {
    ar: (p) => ({
      subject: 'سند: مهمة سلامة متأخرة',
      text: `مرحبًا ${p.username}،\n\nلم تُنجز مهمة سلامة في سند في موعدها. بصفتك منسقًا، يرجى التأكد من أن أحدًا يتولاها الآن. سجّل الدخول هنا:\n${p.link}\n\n${footer.ar}`,
    }),
    de: (p) => ({
      subject: 'Sanad: überfällige Sicherheitsaufgabe',
      text: `Hallo ${p.username},\n\nin Sanad ist eine Sicherheitsaufgabe nicht rechtzeitig erledigt worden. Bitte sorgen Sie als Koordination dafür, dass sich jetzt jemand darum kümmert. Melden Sie sich hier an:\n${p.link}\n\n${footer.de}`,
    }),
    en: (p) => ({
      subject: 'Sanad: overdue safety task',
      text: `Hello ${p.username},\n\na safety task on Sanad was not done in time. As a coordinator, please make sure someone takes care of it now. Sign in here:\n${p.link}\n\n${footer.en}`,
    }),
  },
  safety_task_unacknowledged: {
    ar: (p) => ({
      subject: 'سند: لم يتولَّ أحد مهمة سلامة عاجلة',
      text: `مرحبًا ${p.username}،\n\nلم يؤكد أحد في سند أنه يتولى مهمة سلامة عاجلة بعد إجابة تشير إلى خطر. بصفتك منسقًا، يرجى التأكد الآن من أن أحدًا يتصل بالمريض. سجّل الدخول هنا:\n${p.link}\n\n${footer.ar}`,
    }),
    de: (p) => ({
      subject: 'Sanad: niemand hat eine dringende Sicherheitsaufgabe übernommen',
      text: `Hallo ${p.username},\n\nin Sanad hat nach einer Risikoantwort noch niemand bestätigt, dass er oder sie sich um die dringende Sicherheitsaufgabe kümmert. Bitte sorgen Sie als Koordination jetzt dafür, dass jemand die Patientin oder den Patienten anruft. Melden Sie sich hier an:\n${p.link}\n\n${footer.de}`,
    }),
    en: (p) => ({
      subject: 'Sanad: nobody has taken on an urgent safety task',
      text: `Hello ${p.username},\n\nafter a risk answer on Sanad, nobody has yet confirmed they are taking care of the urgent safety task. As a coordinator, please make sure now that someone calls the patient. Sign in here:\n${p.link}\n\n${footer.en}`,
    }),
  },
  safety_on_call: {
    ar: (p) => ({
      subject: 'سند: مهمة سلامة عاجلة دون مسؤول، للمناوب',
      text: `إلى المناوب،\n\nلم يتولَّ أحد في سند مهمة سلامة عاجلة بعد إجابة تشير إلى خطر، ولا بعد إبلاغ المنسقين. يرجى التصرف وفق خطة الطوارئ في العيادة. سجّل الدخول هنا:\n${p.link}\n\n${footer.ar}`,
    }),
    de: (p) => ({
      subject: 'Sanad: dringende Sicherheitsaufgabe ohne Zuständige, an den Bereitschaftsdienst',
      text: `An den Bereitschaftsdienst,\n\nin Sanad hat nach einer Risikoantwort niemand die dringende Sicherheitsaufgabe übernommen, auch nicht nach der Nachricht an die Koordination. Bitte handeln Sie nach dem Notfallplan der Klinik. Melden Sie sich hier an:\n${p.link}\n\n${footer.de}`,
    }),
    en: (p) => ({
      subject: 'Sanad: urgent safety task without anyone on it, for the on-call service',
      text: `To the on-call service,\n\nafter a risk answer on Sanad, nobody has taken on the urgent safety task, not even after the coordinators were told. Please act on the clinic's emergency plan. Sign in here:\n${p.link}\n\n${footer.en}`,
    }),
  },
  safety_call_review: {
    ar: (p) => ({
      subject: 'سند: مكالمة بشأن خطر الانتحار تحتاج إلى مراجعتك',
      text: `مرحبًا ${p.username}،\n\nسُجّلت في سند مكالمة بشأن خطر الانتحار وطُلب إبلاغ المنسقين. يرجى مراجعتها. سجّل الدخول هنا:\n${p.link}\n\n${footer.ar}`,
    }),
    de: (p) => ({
      subject: 'Sanad: ein Suizidrisiko-Gespräch wartet auf Ihre Durchsicht',
      text: `Hallo ${p.username},\n\nin Sanad wurde ein Gespräch wegen Suizidrisiko erfasst, über das die Koordination informiert werden soll. Bitte sehen Sie es durch. Melden Sie sich hier an:\n${p.link}\n\n${footer.de}`,
    }),
    en: (p) => ({
      subject: 'Sanad: a suicide-risk call is waiting for your review',
      text: `Hello ${p.username},\n\na suicide-risk call was recorded on Sanad and the coordinators are to be informed. Please review it. Sign in here:\n${p.link}\n\n${footer.en}`,
    }),
  },
  workflow_task_reminder: {
    ar: (p) => ({
      subject: 'سند: تذكير بمهمة مفتوحة',
      text: `مرحبًا ${p.username}،\n\nلا تزال لديك مهمة مفتوحة في سند تجاوزت موعدها. لرؤيتها، سجّل الدخول هنا:\n${p.link}\n\n${footer.ar}`,
    }),
    de: (p) => ({
      subject: 'Sanad: Erinnerung an eine offene Aufgabe',
      text: `Hallo ${p.username},\n\nin Sanad ist eine Aufgabe für Sie noch offen, deren Termin verstrichen ist. Um sie zu sehen, melden Sie sich hier an:\n${p.link}\n\n${footer.de}`,
    }),
    en: (p) => ({
      subject: 'Sanad: reminder of an open task',
      text: `Hello ${p.username},\n\na task for you on Sanad is still open and past its due date. To see it, sign in here:\n${p.link}\n\n${footer.en}`,
    }),
  },
  new_worksheet: {
    ar: (p) => ({
      subject: 'سند: أرسل مريض تمرينًا جديدًا',
      text: `مرحبًا ${p.username}،\n\nأرسل أحد المرضى في حالاتك على سند تمرينًا جديدًا. لقراءته، سجّل الدخول هنا:\n${p.link}\n\nلحماية الخصوصية، لا نرسل المحتوى عبر البريد الإلكتروني.\n\n${footer.ar}`,
    }),
    de: (p) => ({
      subject: 'Sanad: ein neues Arbeitsblatt von einer Patientin oder einem Patienten',
      text: `Hallo ${p.username},\n\nin einem Ihrer Fälle in Sanad hat die Patientin oder der Patient ein neues Arbeitsblatt gesendet. Um es zu lesen, melden Sie sich hier an:\n${p.link}\n\nZum Schutz der Privatsphäre senden wir keine Inhalte per E-Mail.\n\n${footer.de}`,
    }),
    en: (p) => ({
      subject: 'Sanad: a patient sent a new worksheet',
      text: `Hello ${p.username},\n\nthe patient of one of your cases on Sanad sent a new worksheet. To read it, sign in here:\n${p.link}\n\nTo protect privacy, we never send content by email.\n\n${footer.en}`,
    }),
  },
  worksheet_feedback: {
    ar: (p) => ({
      subject: 'سند: وصلك رد على تمرينك',
      text: `مرحبًا ${p.username}،\n\nكتب معالجك ردًا على أحد تمارينك في سند. لقراءته، سجّل الدخول هنا:\n${p.link}\n\nلحماية خصوصيتك، لا نرسل المحتوى عبر البريد الإلكتروني.\n\n${footer.ar}`,
    }),
    de: (p) => ({
      subject: 'Sanad: Rückmeldung zu Ihrem Arbeitsblatt',
      text: `Hallo ${p.username},\n\nIhre Therapeutin oder Ihr Therapeut hat Ihnen in Sanad eine Rückmeldung zu einem Arbeitsblatt geschrieben. Um sie zu lesen, melden Sie sich hier an:\n${p.link}\n\nZum Schutz Ihrer Privatsphäre senden wir keine Inhalte per E-Mail.\n\n${footer.de}`,
    }),
    en: (p) => ({
      subject: 'Sanad: feedback on your worksheet',
      text: `Hello ${p.username},\n\nyour therapist wrote feedback on one of your worksheets on Sanad. To read it, sign in here:\n${p.link}\n\nTo protect your privacy, we never send content by email.\n\n${footer.en}`,
    }),
  },
  new_message: {
    ar: (p) => ({
      subject: 'سند: لديك رسالة جديدة',
      text: `مرحبًا ${p.username}،\n\nوصلتك رسالة جديدة في سند. لقراءتها، سجّل الدخول هنا:\n${p.link}\n\nلحماية خصوصيتك، لا نرسل محتوى الرسائل عبر البريد الإلكتروني.\n\n${footer.ar}`,
    }),
    de: (p) => ({
      subject: 'Sanad: Sie haben eine neue Nachricht',
      text: `Hallo ${p.username},\n\nin Sanad ist eine neue Nachricht für Sie eingegangen. Um sie zu lesen, melden Sie sich hier an:\n${p.link}\n\nZum Schutz Ihrer Privatsphäre senden wir keine Nachrichteninhalte per E-Mail.\n\n${footer.de}`,
    }),
    en: (p) => ({
      subject: 'Sanad: you have a new message',
      text: `Hello ${p.username},\n\nthere is a new message for you on Sanad. To read it, sign in here:\n${p.link}\n\nTo protect your privacy, we never send the content of messages by email.\n\n${footer.en}`,
    }),
  },
  staff_invitation: {
    ar: (p) => ({
      subject: 'سند: دعوة إلى فريق العمل',
      text: `مرحبًا ${p.username}،\n\nأُنشئ لك حساب في فريق سند. لاختيار كلمة المرور وتفعيل الحساب، افتح الرابط التالي:\n${p.link}\n\nإذا انتهت صلاحية الرابط، اطلب من المنسِّق دعوة جديدة.\n\n${footer.ar}`,
    }),
    de: (p) => ({
      subject: 'Sanad: Einladung ins Team',
      text: `Hallo ${p.username},\n\nfür Sie wurde ein Konto im Sanad-Team angelegt. Um Ihr Passwort zu wählen und das Konto zu nutzen, öffnen Sie diesen Link:\n${p.link}\n\nIst der Link abgelaufen, bitten Sie die Koordination um eine neue Einladung.\n\n${footer.de}`,
    }),
    en: (p) => ({
      subject: 'Sanad: you are invited to the team',
      text: `Hello ${p.username},\n\nan account on the Sanad team was created for you. To choose your password and start using it, open this link:\n${p.link}\n\nIf the link has expired, ask the coordinator for a new invitation.\n\n${footer.en}`,
    }),
  },
  reset_password: {
    ar: (p) => ({
      subject: 'سند: إعادة تعيين كلمة المرور',
      text: `مرحبًا ${p.username}،\n\nلقد طُلبت إعادة تعيين كلمة المرور لحسابك. لاختيار كلمة مرور جديدة، افتح الرابط التالي:\n${p.link}\n\n${footer.ar}`,
    }),
    de: (p) => ({
      subject: 'Sanad: Passwort zurücksetzen',
      text: `Hallo ${p.username},\n\nfür Ihr Konto wurde das Zurücksetzen des Passworts angefordert. Um ein neues Passwort zu wählen, öffnen Sie diesen Link:\n${p.link}\n\n${footer.de}`,
    }),
    en: (p) => ({
      subject: 'Sanad: reset your password',
      text: `Hello ${p.username},\n\nsomeone asked to reset the password of your account. To choose a new password, open this link:\n${p.link}\n\n${footer.en}`,
    }),
  },
  change_email: {
    ar: (p) => ({
      subject: 'سند: تأكيد عنوان البريد الإلكتروني الجديد',
      text: `مرحبًا ${p.username}،\n\nلاستخدام هذا العنوان (${p.newEmail}) لحسابك في سند، افتح الرابط التالي:\n${p.link}\n\n${footer.ar}`,
    }),
    de: (p) => ({
      subject: 'Sanad: Neue E-Mail-Adresse bestätigen',
      text: `Hallo ${p.username},\n\num diese Adresse (${p.newEmail}) für Ihr Sanad-Konto zu verwenden, öffnen Sie bitte diesen Link:\n${p.link}\n\n${footer.de}`,
    }),
    en: (p) => ({
      subject: 'Sanad: confirm your new email address',
      text: `Hello ${p.username},\n\nto use this address (${p.newEmail}) for your Sanad account, open this link:\n${p.link}\n\n${footer.en}`,
    }),
  },
  email_change_notice: {
    ar: (p) => ({
      subject: 'سند: طلب تغيير البريد الإلكتروني',
      text: `مرحبًا ${p.username}،\n\nطُلب تغيير عنوان البريد الإلكتروني لحسابك. سيتم التغيير فقط بعد تأكيده من العنوان الجديد. إذا لم تطلب ذلك، غيّر كلمة المرور وتواصل مع فريق الدراسة.\n\n${footer.ar}`,
    }),
    de: (p) => ({
      subject: 'Sanad: Änderung der E-Mail-Adresse angefordert',
      text: `Hallo ${p.username},\n\nfür Ihr Konto wurde eine Änderung der E-Mail-Adresse angefordert. Sie wird erst wirksam, wenn sie von der neuen Adresse aus bestätigt wird. Wenn Sie das nicht waren, ändern Sie Ihr Passwort und wenden Sie sich an das Studienteam.\n\n${footer.de}`,
    }),
    en: (p) => ({
      subject: 'Sanad: email address change requested',
      text: `Hello ${p.username},\n\na change of your account's email address was requested. It takes effect only once confirmed from the new address. If this was not you, change your password and contact the study team.\n\n${footer.en}`,
    }),
  },
  email_change_taken: {
    ar: (p) => ({
      subject: 'سند: محاولة استخدام عنوان بريدك الإلكتروني',
      text: `مرحبًا ${p.username}،\n\nطلب شخص ما نقل حساب آخر في سند إلى عنوان بريدك الإلكتروني. هذا العنوان مرتبط بحسابك، لذلك لم يتغير شيء. لا يلزمك فعل أي شيء.\n\n${footer.ar}`,
    }),
    de: (p) => ({
      subject: 'Sanad: Ihre E-Mail-Adresse sollte verwendet werden',
      text: `Hallo ${p.username},\n\njemand hat beantragt, ein anderes Sanad-Konto auf Ihre E-Mail-Adresse umzustellen. Die Adresse gehört zu Ihrem Konto, daher wurde nichts geändert. Sie müssen nichts tun.\n\n${footer.de}`,
    }),
    en: (p) => ({
      subject: 'Sanad: someone tried to use your email address',
      text: `Hello ${p.username},\n\nsomeone asked to move another Sanad account to your email address. The address belongs to your account, so nothing was changed. You do not need to do anything.\n\n${footer.en}`,
    }),
  },
  password_changed: {
    ar: (p) => ({
      subject: 'سند: تم تغيير كلمة المرور',
      text: `مرحبًا ${p.username}،\n\nتم تغيير كلمة المرور لحسابك للتو. إذا لم تقم بذلك، أعد تعيين كلمة المرور فورًا وتواصل مع فريق الدراسة.\n\n${footer.ar}`,
    }),
    de: (p) => ({
      subject: 'Sanad: Ihr Passwort wurde geändert',
      text: `Hallo ${p.username},\n\ndas Passwort Ihres Kontos wurde soeben geändert. Wenn Sie das nicht waren, setzen Sie Ihr Passwort sofort zurück und wenden Sie sich an das Studienteam.\n\n${footer.de}`,
    }),
    en: (p) => ({
      subject: 'Sanad: your password was changed',
      text: `Hello ${p.username},\n\nthe password of your account was just changed. If this was not you, reset your password at once and contact the study team.\n\n${footer.en}`,
    }),
  },
};

export const MAIL_KINDS = Object.keys(templates) as MailKind[];

export function renderMail(kind: MailKind, locale: Locale, params: Params): MailContent {
  return templates[kind][locale](params);
}
