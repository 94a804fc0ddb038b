import type { PastedKind } from './pasted-kinds';

/**
 * Word lists for the special categories of personal data, as data. No maintained list with a licence this
 * project can ship (Apache-2.0) fits a worker's budget: the cspell medical-terms dictionary is GPL-3.0 and
 * 10⁵ words of anatomy and chemistry, and the PII redaction packages on npm cover identifiers, not health,
 * beliefs or sexuality. So these are the words people use in chats and e-mails for each category —
 * common conditions and the most prescribed medicines (generic and brand names), faiths and their
 * places and feasts, parties and voting, orientations, unions and strikes, ethnic groups, arrests and
 * sentences — chosen so that a word is about a person's category and rarely anything else ("halal" yes;
 * "black", "white", "race", "aids", "union" alone no: a shop sells black shirts). Each term matches as a
 * whole word, in any case, with its plural and common endings.
 *
 * `asked`: words in the user's instruction that call for the category itself (the user asks to send
 * their prescription, their address): then details of that kind are what the task sends, not a leak.
 */
export interface CategoryLexicon {
  kind: PastedKind;
  terms: readonly string[];
  asked: RegExp;
}

const HEALTH_TERMS = [
  // conditions and what is said about them
  'migraine', 'headache', 'diabetes', 'diabetic', 'asthma', 'asthmatic', 'cancer', 'tumor', 'tumour', 'chemo', 'chemotherapy', 'radiotherapy',
  'radiation therapy', 'hiv', 'std', 'sti', 'herpes', 'hepatitis', 'depression', 'depressed', 'anxiety', 'panic attack', 'bipolar', 'schizophrenia',
  'schizophrenic', 'adhd', 'autism', 'autistic', 'ocd', 'ptsd', 'eating disorder', 'anorexia', 'bulimia', 'insomnia', 'epilepsy', 'epileptic',
  'seizure', 'heart attack', 'heart disease', 'heart condition', 'hypertension', 'high blood pressure', 'cholesterol', 'arthritis', 'alzheimer',
  "alzheimer's", 'dementia', 'parkinson', "parkinson's", 'multiple sclerosis', 'copd', 'covid', 'covid-19', 'long covid', 'flu', 'pneumonia',
  'bronchitis', 'infection', 'allergy', 'allergic', 'celiac', 'coeliac', 'crohn', "crohn's", 'ibs', 'ulcer', 'kidney disease', 'kidney stone',
  'dialysis', 'cirrhosis', 'thyroid', 'hypothyroidism', 'hyperthyroidism', 'lupus', 'fibromyalgia', 'endometriosis', 'pcos', 'pregnant',
  'pregnancy', 'miscarriage', 'abortion', 'ivf', 'infertility', 'menopause', 'surgery', 'diagnosed', 'diagnosis', 'prescription', 'prescribed',
  'medication', 'meds', 'therapy', 'therapist', 'psychiatrist', 'psychologist', 'counselling', 'counseling', 'rehab', 'addiction', 'addicted',
  'alcoholic', 'alcoholism', 'overdose', 'sobriety', 'oncologist', 'neurologist', 'cardiologist', 'dermatologist', 'gynecologist', 'gynaecologist',
  'urologist', 'psychotherapy', 'hospitalized', 'hospitalised', 'biopsy', 'mri', 'ct scan', 'blood test', 'symptoms', 'concussion', 'disability',
  'mental health', 'suicidal', 'self-harm', 'eczema', 'psoriasis', 'obesity', 'gout', 'anemia', 'anaemia', 'leukemia', 'leukaemia', 'lymphoma',
  'melanoma', 'tuberculosis', 'shingles', 'glaucoma', 'sleep apnea', 'sick leave', 'sick note', 'stroke', 'stds', 'chlamydia', 'gonorrhea',
  'syphilis', 'hiv-positive', 'hiv positive', 'burnout', 'postpartum', 'chronic pain', 'physiotherapy', 'physical therapy', 'colonoscopy',
  'mammogram', 'vasectomy', 'hysterectomy', 'mastectomy', 'transplant', 'insulin',
  // medicines (generic and brand names)
  'sumatriptan', 'imitrex', 'ibuprofen', 'advil', 'motrin', 'acetaminophen', 'paracetamol', 'tylenol', 'naproxen', 'aleve', 'metformin',
  'ozempic', 'semaglutide', 'wegovy', 'mounjaro', 'tirzepatide', 'lisinopril', 'amlodipine', 'atorvastatin', 'lipitor', 'simvastatin',
  'rosuvastatin', 'crestor', 'metoprolol', 'losartan', 'hydrochlorothiazide', 'levothyroxine', 'synthroid', 'omeprazole', 'prilosec',
  'pantoprazole', 'esomeprazole', 'nexium', 'gabapentin', 'sertraline', 'zoloft', 'fluoxetine', 'prozac', 'citalopram', 'escitalopram',
  'lexapro', 'paroxetine', 'paxil', 'bupropion', 'wellbutrin', 'venlafaxine', 'effexor', 'duloxetine', 'cymbalta', 'trazodone', 'mirtazapine',
  'lithium', 'lamotrigine', 'lamictal', 'quetiapine', 'seroquel', 'aripiprazole', 'abilify', 'risperidone', 'olanzapine', 'alprazolam', 'xanax',
  'lorazepam', 'ativan', 'diazepam', 'valium', 'clonazepam', 'klonopin', 'zolpidem', 'ambien', 'adderall', 'methylphenidate', 'ritalin',
  'concerta', 'vyvanse', 'oxycodone', 'oxycontin', 'hydrocodone', 'vicodin', 'percocet', 'tramadol', 'codeine', 'morphine', 'fentanyl',
  'methadone', 'suboxone', 'buprenorphine', 'naloxone', 'narcan', 'prednisone', 'albuterol', 'ventolin', 'inhaler', 'epipen', 'amoxicillin',
  'azithromycin', 'doxycycline', 'ciprofloxacin', 'cephalexin', 'penicillin', 'antibiotic', 'antibiotics', 'antidepressant', 'antidepressants',
  'warfarin', 'coumadin', 'eliquis', 'apixaban', 'xarelto', 'clopidogrel', 'plavix', 'furosemide', 'lasix', 'spironolactone', 'montelukast',
  'singulair', 'cetirizine', 'zyrtec', 'loratadine', 'claritin', 'benadryl', 'diphenhydramine', 'viagra', 'sildenafil', 'cialis', 'tadalafil',
  'truvada', 'contraceptive', 'birth control', 'finasteride', 'isotretinoin', 'accutane', 'methotrexate', 'humira', 'adalimumab', 'tamoxifen',
  'estradiol', 'testosterone', 'valacyclovir', 'valtrex', 'acyclovir', 'topiramate', 'topamax', 'propranolol', 'atenolol', 'hydroxyzine',
  'buspirone', 'ssri', 'ssris', 'statins',
];

const RELIGION_TERMS = [
  'christian', 'catholic', 'protestant', 'baptist', 'methodist', 'lutheran', 'evangelical', 'mormon', "jehovah's witness", 'muslim', 'islam',
  'islamic', 'jewish', 'judaism', 'hindu', 'hinduism', 'buddhist', 'buddhism', 'sikh', 'sikhism', 'atheist', 'agnostic', 'church', 'mosque',
  'synagogue', 'ramadan', 'passover', 'yom kippur', 'rosh hashanah', 'eid', 'lent', 'bible study', 'mass on sunday', 'sunday mass', 'pray',
  'prayer', 'praying', 'kosher', 'halal', 'baptism', 'baptized', 'bar mitzvah', 'bat mitzvah', 'pastor', 'imam', 'rabbi', 'priest', 'quran',
  'koran', 'torah', 'bible', 'born again', 'scientology', 'scientologist',
];

const POLITICS_TERMS = [
  'democrat', 'democrats', 'republican', 'republicans', 'gop', 'labour party', 'tory', 'tories', 'conservative party', 'green party', 'lib dem',
  'libertarian', 'socialist', 'communist', 'maga', 'voted for', 'voting for', 'vote for', 'my vote', 'ballot', 'campaign donation',
  'political', 'politics', 'left-wing', 'right-wing', 'far-right', 'far-left', 'liberal', 'protest', 'protester', 'activist', 'party member',
  'pro-life', 'pro-choice',
];

const SEXUALITY_TERMS = [
  'gay', 'lesbian', 'bisexual', 'queer', 'lgbt', 'lgbtq', 'lgbtqia', 'lgbtq+', 'transgender', 'trans woman', 'trans man', 'non-binary',
  'nonbinary', 'asexual', 'pansexual', 'coming out', 'came out', 'homosexual', 'same-sex', 'pride parade', 'grindr', 'sexual orientation',
];

const UNION_TERMS = [
  'trade union', 'labor union', 'labour union', 'union member', 'union membership', 'union dues', 'union meeting', 'union rep', 'union steward',
  'shop steward', 'the union', 'my union', 'our union', 'strike vote', 'on strike', 'picket', 'picket line', 'collective bargaining',
  'teamsters', 'afl-cio', 'unison', 'seiu', 'unionize', 'unionise', 'unionizing', 'unionising', 'union card',
];

const ETHNICITY_TERMS = [
  'hispanic', 'latino', 'latina', 'latinx', 'african american', 'african-american', 'asian american', 'asian-american', 'caucasian',
  'native american', 'indigenous', 'aboriginal', 'pacific islander', 'biracial', 'mixed-race', 'mixed race', 'ethnicity', 'ethnic', 'roma',
  'romani', 'arab', 'ethnically', 'racial', 'first nations', 'inuit', 'māori', 'maori',
];

const CRIMINAL_TERMS = [
  'convicted', 'conviction', 'criminal record', 'arrested', 'arrest', 'felony', 'felon', 'misdemeanor', 'misdemeanour', 'parole',
  'on probation', 'probation officer', 'jail', 'prison', 'incarcerated', 'sentenced', 'inmate', 'dui', 'dwi', 'mugshot', 'charged with',
  'plea deal', 'pleaded guilty', 'pled guilty', 'restraining order', 'sex offender', 'criminal charges', 'ex-con', 'locked up', 'court date',
];

export const CATEGORY_LEXICONS: readonly CategoryLexicon[] = [
  { kind: 'health', terms: HEALTH_TERMS, asked: /\b(?:health|medical|medicine|doctor|pharmacy|prescriptions?|medications?|symptoms?|clinic|patient|diagnos\w*|illness|sick)\b/i },
  { kind: 'religion', terms: RELIGION_TERMS, asked: /\b(?:religio\w*|faith|church|worship)\b/i },
  { kind: 'politics', terms: POLITICS_TERMS, asked: /\b(?:politic\w*|vot(?:e|es|ed|ing)|election|campaign|party affiliation)\b/i },
  { kind: 'sexuality', terms: SEXUALITY_TERMS, asked: /\b(?:sexual\w*|orientation|lgbt\w*|pride)\b/i },
  { kind: 'union_membership', terms: UNION_TERMS, asked: /\b(?:unions?|strike)\b/i },
  { kind: 'ethnicity', terms: ETHNICITY_TERMS, asked: /\b(?:ethnic\w*|race|racial|heritage|ancestry)\b/i },
  { kind: 'criminal_record', terms: CRIMINAL_TERMS, asked: /\b(?:criminal|court|legal|lawyer|arrest\w*|conviction)\b/i },
];

const escape = (term: string) => term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/[ -]/g, '[\\s-]+');

/** A term in text, as a whole word in any case, with its plural and common endings. */
export function termPattern(terms: readonly string[]): RegExp {
  const sorted = [...terms].sort((a, b) => b.length - a.length).map(escape);
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${sorted.join('|')})(?:s|es|'s|ed|ing)?(?![\\p{L}\\p{N}])`, 'giu');
}

/** Words in the instruction that call for the identifying details themselves. */
export const IDENTIFYING_ASKED: Partial<Record<PastedKind, RegExp>> = {
  home_address: /\b(?:address(?:es)?|ship(?:ping|ped)?|deliver(?:y|ed)?|post(?:al)? code|zip|where (?:she|he|they) lives?)\b/i,
  birth_date: /\b(?:birth\w*|born|dob|age|how old)\b/i,
  national_id: /\b(?:ssn|social security|passport|national (?:id|insurance)|tax (?:id|number)|driver'?s licen[cs]e|id number)\b/i,
  account_number: /\b(?:account|card|bank|pay(?:ment|ing)?|iban|routing|billing|refund|invoice|transfer)\b/i,
  pasted_contact: /\b(?:e-?mail address(?:es)?|phone numbers?|contact (?:details|info\w*)|(?:his|her|their|my) (?:number|e-?mail))\b/i,
  third_party_name: /\b(?:names?|invite|members?|assign\w*|recipients?)\b/i,
};
