package journal

// smsInboxSchema holds calq sms's inbox (owned by the sms inbox work).
const smsInboxSchema = `SELECT 1`
